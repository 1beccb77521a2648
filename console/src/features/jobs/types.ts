/** API types of the drawing and task logs, from the generated OpenAPI schema, and the filter form's shape. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** A drawing job (GET /api/mj/, /api/mj/self/): submit, start and finish times in epoch milliseconds. */
export type DrawingJob = Schemas['DrawingView'];
/** A generic task (GET /api/task/, /api/task/self): times in epoch seconds. */
export type TaskJob = Schemas['TaskView'];

/** The filter form of both logs. Times are epoch seconds here whatever the log's unit. */
export interface JobFilters {
  /** Admins only: a channel id typed as text ('' for any). */
  channel: string;
  /** The job's id: `mj_id` of a drawing, `task_id` of a task. */
  jobId: string;
  /** The job's exact status ('' for any). */
  status: string;
  /** The task's exact platform ('' for any; the task log only). */
  platform: string;
  start: number | null;
  end: number | null;
}

/** Arguments of one log's list call (the page is the infinite query's page parameter). */
export interface JobListArgs {
  admin: boolean;
  filters: JobFilters;
}

/** Query parameters of a list call (absent ones are not sent). */
export type JobParams = Record<string, string | number>;
