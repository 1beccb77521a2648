/** Paging of a table: the current page, the stored page size, and antd's pagination props. */
import type { TablePaginationConfig } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { PAGE_SIZE_OPTIONS } from './constants';
import { common } from './messages';
import { usePageSize } from './usePageSize';

export interface Paging {
  page: number;
  setPage: (page: number) => void;
  pageSize: number;
  /** Pagination props for `total` rows: size changer (10/20/50/100), total, back to page 1 on a new size. */
  pagination: (total: number) => TablePaginationConfig;
}

export function usePaging(): Paging {
  const intl = useIntl();
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const pagination = (total: number): TablePaginationConfig => ({
    current: page,
    pageSize,
    total,
    showSizeChanger: true,
    pageSizeOptions: PAGE_SIZE_OPTIONS.map(String),
    showTotal: (n) => intl.formatMessage(common.total, { total: n }),
    onChange: (p, size) => {
      if (size !== pageSize) {
        setPageSize(size);
        setPage(1);
      } else setPage(p);
    },
  });
  return { page, setPage, pageSize, pagination };
}
