import { defineMessages } from '../../i18n/define';

export const page = defineMessages({
  drawingTitle: { id: 'jobs.drawing.title', defaultMessage: 'Drawing logs', description: 'Drawing log page title' },
  taskTitle: { id: 'jobs.task.title', defaultMessage: 'Task logs', description: 'Task log page title' },
  refresh: { id: 'jobs.refresh', defaultMessage: 'Refresh', description: 'Fetch the table again' },
  drawingEmpty: {
    id: 'jobs.drawing.empty',
    defaultMessage: 'No drawing tasks in this time range',
    description: 'Empty drawing table',
  },
  taskEmpty: { id: 'jobs.task.empty', defaultMessage: 'No tasks in this time range', description: 'Empty task table' },
  callbackOff: {
    id: 'jobs.drawing.callbackOff',
    defaultMessage:
      'Drawing callbacks are not enabled: some tasks may never receive their results. Turn on "Allow drawing callbacks" in the operation settings.',
    description: 'Admin notice on the drawing log when MjNotifyEnabled is off',
  },
  openSettings: { id: 'jobs.drawing.openSettings', defaultMessage: 'Open settings', description: 'Notice link to the settings' },
});

export const filters = defineMessages({
  channel: { id: 'jobs.filters.channel', defaultMessage: 'Channel ID', description: 'Filter: channel id (admin)' },
  taskId: { id: 'jobs.filters.taskId', defaultMessage: 'Task ID', description: 'Filter: the job id' },
  status: { id: 'jobs.filters.status', defaultMessage: 'Status', description: 'Filter: the job status (empty for any)' },
  platform: { id: 'jobs.filters.platform', defaultMessage: 'Platform', description: 'Filter: the task platform (empty for any)' },
  start: { id: 'jobs.filters.start', defaultMessage: 'Start time', description: 'Filter: start time' },
  end: { id: 'jobs.filters.end', defaultMessage: 'End time', description: 'Filter: end time' },
  search: { id: 'jobs.filters.search', defaultMessage: 'Search', description: 'Apply the filters' },
  reset: { id: 'jobs.filters.reset', defaultMessage: 'Reset', description: 'Back to the default filters' },
  channelInvalid: {
    id: 'jobs.filters.channelInvalid',
    defaultMessage: 'The channel ID must be a positive whole number',
    description: 'Channel filter is not a number',
  },
  rangeInvalid: {
    id: 'jobs.filters.rangeInvalid',
    defaultMessage: 'The start time must be before the end time',
    description: 'Time range out of order',
  },
});

export const columns = defineMessages({
  submitTime: { id: 'jobs.columns.submitTime', defaultMessage: 'Submit time', description: 'Column: submit time' },
  finishTime: { id: 'jobs.columns.finishTime', defaultMessage: 'Finish time', description: 'Column: finish time' },
  elapsed: { id: 'jobs.columns.elapsed', defaultMessage: 'Elapsed', description: 'Column: time from submit to finish' },
  channel: { id: 'jobs.columns.channel', defaultMessage: 'Channel', description: 'Column: channel (admin)' },
  platform: { id: 'jobs.columns.platform', defaultMessage: 'Platform', description: 'Column: task platform' },
  type: { id: 'jobs.columns.type', defaultMessage: 'Type', description: 'Column: action' },
  taskId: { id: 'jobs.columns.taskId', defaultMessage: 'Task ID', description: 'Column: job id' },
  submitResult: { id: 'jobs.columns.submitResult', defaultMessage: 'Submit result', description: 'Column: drawing submit code' },
  status: { id: 'jobs.columns.status', defaultMessage: 'Status', description: 'Column: status' },
  progress: { id: 'jobs.columns.progress', defaultMessage: 'Progress', description: 'Column: progress' },
  image: { id: 'jobs.columns.image', defaultMessage: 'Result image', description: 'Column: drawing result image' },
  prompt: { id: 'jobs.columns.prompt', defaultMessage: 'Prompt', description: 'Column: prompt' },
  promptEn: { id: 'jobs.columns.promptEn', defaultMessage: 'English prompt', description: 'Column: English prompt' },
  failReason: { id: 'jobs.columns.failReason', defaultMessage: 'Failure reason', description: 'Column: failure reason' },
  seconds: { id: 'jobs.columns.seconds', defaultMessage: '{seconds} s', description: 'A duration in seconds' },
  showAll: {
    id: 'jobs.columns.showAll',
    defaultMessage: 'Click to read the whole text',
    description: 'Tooltip of a long text that opens a dialog',
  },
  openRecord: {
    id: 'jobs.columns.openRecord',
    defaultMessage: 'Click to see the whole record',
    description: 'Tooltip of a task id',
  },
  viewImage: { id: 'jobs.columns.viewImage', defaultMessage: 'Result image of task {id}', description: 'Image alt text' },
  close: { id: 'jobs.columns.close', defaultMessage: 'Close', description: 'Closes a dialog' },
});

export const record = defineMessages({
  title: { id: 'jobs.record.title', defaultMessage: 'Task {id}', description: 'Task record dialog title' },
  id: { id: 'jobs.record.id', defaultMessage: 'Record ID', description: 'Record: id' },
  taskId: { id: 'jobs.record.taskId', defaultMessage: 'Task ID', description: 'Record: task id' },
  platform: { id: 'jobs.record.platform', defaultMessage: 'Platform', description: 'Record: platform' },
  action: { id: 'jobs.record.action', defaultMessage: 'Type', description: 'Record: action' },
  status: { id: 'jobs.record.status', defaultMessage: 'Status', description: 'Record: status' },
  progress: { id: 'jobs.record.progress', defaultMessage: 'Progress', description: 'Record: progress' },
  userId: { id: 'jobs.record.userId', defaultMessage: 'User ID', description: 'Record: user id' },
  channel: { id: 'jobs.record.channel', defaultMessage: 'Channel', description: 'Record: channel (admin)' },
  quota: { id: 'jobs.record.quota', defaultMessage: 'Quota', description: 'Record: quota charged' },
  createdAt: { id: 'jobs.record.createdAt', defaultMessage: 'Created', description: 'Record: created time' },
  updatedAt: { id: 'jobs.record.updatedAt', defaultMessage: 'Updated', description: 'Record: updated time' },
  submitTime: { id: 'jobs.record.submitTime', defaultMessage: 'Submitted', description: 'Record: submit time' },
  startTime: { id: 'jobs.record.startTime', defaultMessage: 'Started', description: 'Record: start time' },
  finishTime: { id: 'jobs.record.finishTime', defaultMessage: 'Finished', description: 'Record: finish time' },
  failReason: { id: 'jobs.record.failReason', defaultMessage: 'Failure reason', description: 'Record: failure reason' },
  data: { id: 'jobs.record.data', defaultMessage: 'Result data', description: "Record: the provider's result" },
});

/** Drawing actions (spec 3 §4), by the API's value. */
export const drawingActions = defineMessages({
  IMAGINE: { id: 'jobs.action.imagine', defaultMessage: 'Imagine', description: 'Drawing action IMAGINE' },
  UPSCALE: { id: 'jobs.action.upscale', defaultMessage: 'Upscale', description: 'Drawing action UPSCALE' },
  VARIATION: { id: 'jobs.action.variation', defaultMessage: 'Variation', description: 'Drawing action VARIATION' },
  HIGH_VARIATION: {
    id: 'jobs.action.highVariation',
    defaultMessage: 'Strong variation',
    description: 'Drawing action HIGH_VARIATION',
  },
  LOW_VARIATION: {
    id: 'jobs.action.lowVariation',
    defaultMessage: 'Subtle variation',
    description: 'Drawing action LOW_VARIATION',
  },
  PAN: { id: 'jobs.action.pan', defaultMessage: 'Pan', description: 'Drawing action PAN' },
  DESCRIBE: { id: 'jobs.action.describe', defaultMessage: 'Describe (image to text)', description: 'Drawing action DESCRIBE' },
  BLEND: { id: 'jobs.action.blend', defaultMessage: 'Blend', description: 'Drawing action BLEND' },
  UPLOAD: { id: 'jobs.action.upload', defaultMessage: 'Upload', description: 'Drawing action UPLOAD' },
  SHORTEN: { id: 'jobs.action.shorten', defaultMessage: 'Shorten', description: 'Drawing action SHORTEN' },
  REROLL: { id: 'jobs.action.reroll', defaultMessage: 'Reroll', description: 'Drawing action REROLL' },
  INPAINT: { id: 'jobs.action.inpaint', defaultMessage: 'Vary region', description: 'Drawing action INPAINT' },
  ZOOM: { id: 'jobs.action.zoom', defaultMessage: 'Zoom', description: 'Drawing action ZOOM' },
  CUSTOM_ZOOM: { id: 'jobs.action.customZoom', defaultMessage: 'Custom zoom', description: 'Drawing action CUSTOM_ZOOM' },
  MODAL: { id: 'jobs.action.modal', defaultMessage: 'Window', description: 'Drawing action MODAL' },
  SWAP_FACE: { id: 'jobs.action.swapFace', defaultMessage: 'Swap face', description: 'Drawing action SWAP_FACE' },
});

/** Drawing submit results (spec 3 §4). */
export const drawingCodes = defineMessages({
  submitted: { id: 'jobs.code.submitted', defaultMessage: 'Submitted', description: 'Drawing submit code 1' },
  waiting: { id: 'jobs.code.waiting', defaultMessage: 'Waiting', description: 'Drawing submit code 21' },
  duplicate: { id: 'jobs.code.duplicate', defaultMessage: 'Duplicate submission', description: 'Drawing submit code 22' },
  notSubmitted: { id: 'jobs.code.notSubmitted', defaultMessage: 'Not submitted', description: 'Drawing submit code 0' },
});

/** Statuses of both logs (spec 3 §4). */
export const statuses = defineMessages({
  notStart: { id: 'jobs.status.notStart', defaultMessage: 'Not started', description: 'Status NOT_START' },
  submitted: { id: 'jobs.status.submitted', defaultMessage: 'In queue', description: 'Status SUBMITTED' },
  queued: { id: 'jobs.status.queued', defaultMessage: 'Queued', description: 'Task status QUEUED' },
  inProgress: { id: 'jobs.status.inProgress', defaultMessage: 'In progress', description: 'Status IN_PROGRESS' },
  success: { id: 'jobs.status.success', defaultMessage: 'Succeeded', description: 'Status SUCCESS' },
  failure: { id: 'jobs.status.failure', defaultMessage: 'Failed', description: 'Status FAILURE' },
  modal: { id: 'jobs.status.modal', defaultMessage: 'Waiting for the window', description: 'Drawing status MODAL' },
  submitting: { id: 'jobs.status.submitting', defaultMessage: 'Submitting', description: 'Task status "" (empty)' },
  unknown: { id: 'jobs.status.unknown', defaultMessage: 'Unknown', description: 'Status UNKNOWN or any other value' },
});

/** Task platforms and actions (spec 3 §4). */
export const taskLabels = defineMessages({
  suno: { id: 'jobs.platform.suno', defaultMessage: 'Suno', description: 'Task platform suno' },
  MUSIC: { id: 'jobs.taskAction.music', defaultMessage: 'Generate music', description: 'Task action MUSIC' },
  LYRICS: { id: 'jobs.taskAction.lyrics', defaultMessage: 'Generate lyrics', description: 'Task action LYRICS' },
});
