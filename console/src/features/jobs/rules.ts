/**
 * Display rules of the drawing and task logs (spec 3 §2.3, §2.4, §4) as pure functions: the
 * labels and colours of actions, submit results and statuses, elapsed time and its colour,
 * progress, and times in each log's unit.
 */
import dayjs from 'dayjs';
import type { MessageDescriptor } from 'react-intl';
import {
  DRAWING_ACTIONS,
  DRAWING_CODE,
  ELAPSED_RED_ABOVE_S,
  JOB_TIME_FORMAT,
  MS_PER_SECOND,
  TASK_ACTIONS,
  TASK_PLATFORMS,
} from './constants';
import { drawingActions, drawingCodes, statuses, taskLabels } from './messages';

/** A label: a message of the catalogue, or the API's own value when it is not one we know. */
export type Label = { message: MessageDescriptor; color: string } | { text: string; color: string };

const known = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

export function drawingActionLabel(action: string): Label {
  return known(DRAWING_ACTIONS, action) ? { message: drawingActions[action], color: 'blue' } : { text: action, color: 'default' };
}

export function drawingCodeLabel(code: number): Label {
  switch (code) {
    case DRAWING_CODE.submitted:
      return { message: drawingCodes.submitted, color: 'green' };
    case DRAWING_CODE.waiting:
      return { message: drawingCodes.waiting, color: 'lime' };
    case DRAWING_CODE.duplicate:
      return { message: drawingCodes.duplicate, color: 'orange' };
    case DRAWING_CODE.notSubmitted:
      return { message: drawingCodes.notSubmitted, color: 'gold' };
    default:
      return { message: statuses.unknown, color: 'default' };
  }
}

/** Statuses shared by both logs. */
function commonStatus(status: string): Label | null {
  switch (status) {
    case 'NOT_START':
      return { message: statuses.notStart, color: 'default' };
    case 'SUBMITTED':
      return { message: statuses.submitted, color: 'gold' };
    case 'IN_PROGRESS':
      return { message: statuses.inProgress, color: 'blue' };
    case 'SUCCESS':
      return { message: statuses.success, color: 'green' };
    case 'FAILURE':
      return { message: statuses.failure, color: 'red' };
    default:
      return null;
  }
}

export function drawingStatusLabel(status: string): Label {
  if (status === 'MODAL') return { message: statuses.modal, color: 'orange' };
  return commonStatus(status) ?? { message: statuses.unknown, color: 'default' };
}

export function taskStatusLabel(status: string): Label {
  if (status === '') return { message: statuses.submitting, color: 'processing' };
  if (status === 'QUEUED') return { message: statuses.queued, color: 'gold' };
  return commonStatus(status) ?? { message: statuses.unknown, color: 'default' };
}

export function taskPlatformLabel(platform: string): Label {
  return known(TASK_PLATFORMS, platform)
    ? { message: taskLabels[platform], color: 'purple' }
    : { text: platform, color: 'default' };
}

export function taskActionLabel(action: string): Label {
  return known(TASK_ACTIONS, action) ? { message: taskLabels[action], color: 'cyan' } : { text: action, color: 'default' };
}

/** The unit a log keeps its times in. */
export type TimeUnit = 'ms' | 's';

const toSeconds = (t: number, unit: TimeUnit) => (unit === 'ms' ? t / MS_PER_SECOND : t);

/** Seconds from submit to finish (one decimal), or null while either is unknown (0) or out of order. */
export function elapsedSeconds(submit: number, finish: number, unit: TimeUnit): number | null {
  if (!(submit > 0) || !(finish > 0) || finish < submit) return null;
  return Math.round((toSeconds(finish, unit) - toSeconds(submit, unit)) * 10) / 10;
}

/** Elapsed time is red above 60 s, green otherwise. */
export function elapsedColor(seconds: number): 'red' | 'green' {
  return seconds > ELAPSED_RED_ABOVE_S ? 'red' : 'green';
}

/** A progress text ("50%", "100", "") as a percentage from 0 to 100, or null when there is none. */
export function progressPercent(progress: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(progress);
  if (!m) return null;
  return Math.min(100, Math.max(0, Number(m[1])));
}

/** A time of the log (0: not yet), formatted in local time, or null. */
export function formatJobTime(t: number, unit: TimeUnit): string | null {
  if (!(t > 0)) return null;
  return (unit === 'ms' ? dayjs(t) : dayjs.unix(t)).format(JOB_TIME_FORMAT);
}
