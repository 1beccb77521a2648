/** Shows the codes a create call returned, with copy-all and download-as-text. */
import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Button, Modal, Space, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { created as m } from './messages';
import { codesFileName, codesText } from './rules';

function download(fileName: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

export function CreatedCodesModal({ codes, name, onClose }: { codes: string[]; name: string; onClose: () => void }) {
  const intl = useIntl();
  const text = codesText(codes);
  return (
    <Modal
      open={codes.length > 0}
      title={intl.formatMessage(m.title)}
      onCancel={onClose}
      footer={
        <Space>
          <Button icon={<CopyOutlined />} onClick={() => void copyWithFallback(intl, text)} data-testid="codes-copy-all">
            {intl.formatMessage(m.copyAll)}
          </Button>
          <Button icon={<DownloadOutlined />} onClick={() => download(codesFileName(name), text)} data-testid="codes-download">
            {intl.formatMessage(m.download)}
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph>{intl.formatMessage(m.intro, { count: codes.length })}</Typography.Paragraph>
      <pre data-testid="created-codes" style={{ maxHeight: 320, overflow: 'auto', userSelect: 'all' }}>
        {text}
      </pre>
    </Modal>
  );
}
