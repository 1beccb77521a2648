import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { drawingActions, drawingCodes, statuses, taskLabels } from './messages';
import {
  drawingActionLabel,
  drawingCodeLabel,
  drawingStatusLabel,
  elapsedColor,
  elapsedSeconds,
  formatJobTime,
  progressPercent,
  taskActionLabel,
  taskPlatformLabel,
  taskStatusLabel,
} from './rules';

describe('labels (spec 3 §4)', () => {
  it('names every drawing action, and shows an unknown one as it came', () => {
    expect(drawingActionLabel('IMAGINE')).toEqual({ message: drawingActions.IMAGINE, color: 'blue' });
    expect(drawingActionLabel('SWAP_FACE')).toEqual({ message: drawingActions.SWAP_FACE, color: 'blue' });
    expect(drawingActionLabel('VIDEO')).toEqual({ text: 'VIDEO', color: 'default' });
  });

  it('names the submit results 1, 21, 22 and 0', () => {
    expect(drawingCodeLabel(1)).toEqual({ message: drawingCodes.submitted, color: 'green' });
    expect(drawingCodeLabel(21)).toEqual({ message: drawingCodes.waiting, color: 'lime' });
    expect(drawingCodeLabel(22)).toEqual({ message: drawingCodes.duplicate, color: 'orange' });
    expect(drawingCodeLabel(0)).toEqual({ message: drawingCodes.notSubmitted, color: 'gold' });
    expect(drawingCodeLabel(5)).toEqual({ message: statuses.unknown, color: 'default' });
  });

  it('names the drawing statuses, MODAL as waiting for the window', () => {
    expect(drawingStatusLabel('SUBMITTED')).toEqual({ message: statuses.submitted, color: 'gold' });
    expect(drawingStatusLabel('SUCCESS')).toEqual({ message: statuses.success, color: 'green' });
    expect(drawingStatusLabel('FAILURE')).toEqual({ message: statuses.failure, color: 'red' });
    expect(drawingStatusLabel('MODAL')).toEqual({ message: statuses.modal, color: 'orange' });
    expect(drawingStatusLabel('QUEUED')).toEqual({ message: statuses.unknown, color: 'default' });
  });

  it('names the task statuses, an empty one as submitting', () => {
    expect(taskStatusLabel('')).toEqual({ message: statuses.submitting, color: 'processing' });
    expect(taskStatusLabel('QUEUED')).toEqual({ message: statuses.queued, color: 'gold' });
    expect(taskStatusLabel('IN_PROGRESS')).toEqual({ message: statuses.inProgress, color: 'blue' });
    expect(taskStatusLabel('UNKNOWN')).toEqual({ message: statuses.unknown, color: 'default' });
    expect(taskStatusLabel('MODAL')).toEqual({ message: statuses.unknown, color: 'default' });
  });

  it('names the suno platform and the music and lyrics actions', () => {
    expect(taskPlatformLabel('suno')).toEqual({ message: taskLabels.suno, color: 'purple' });
    expect(taskPlatformLabel('kling')).toEqual({ text: 'kling', color: 'default' });
    expect(taskActionLabel('MUSIC')).toEqual({ message: taskLabels.MUSIC, color: 'cyan' });
    expect(taskActionLabel('LYRICS')).toEqual({ message: taskLabels.LYRICS, color: 'cyan' });
  });
});

describe('elapsed time (spec 3 §2.3)', () => {
  it('reads drawing times in milliseconds and task times in seconds', () => {
    expect(elapsedSeconds(1_900_000_000_000, 1_900_000_042_500, 'ms')).toBe(42.5);
    expect(elapsedSeconds(1_900_000_000, 1_900_000_090, 's')).toBe(90);
  });

  it('is unknown until both times are set, or when they are out of order', () => {
    expect(elapsedSeconds(1_900_000_000_000, 0, 'ms')).toBeNull();
    expect(elapsedSeconds(0, 1_900_000_000, 's')).toBeNull();
    expect(elapsedSeconds(200, 100, 's')).toBeNull();
  });

  it('is red above 60 s, green up to it', () => {
    expect(elapsedColor(60)).toBe('green');
    expect(elapsedColor(60.1)).toBe('red');
    expect(elapsedColor(3)).toBe('green');
  });
});

describe('progress and times', () => {
  it('reads a progress text as a percentage', () => {
    expect(progressPercent('50%')).toBe(50);
    expect(progressPercent(' 100 % ')).toBe(100);
    expect(progressPercent('12.5%')).toBe(12.5);
    expect(progressPercent('250%')).toBe(100);
    expect(progressPercent('')).toBeNull();
    expect(progressPercent('soon')).toBeNull();
  });

  it('formats each log in its unit, nothing for 0', () => {
    const t = dayjs('2030-05-06T14:30:15');
    expect(formatJobTime(t.valueOf(), 'ms')).toBe('2030-05-06 14:30:15');
    expect(formatJobTime(t.unix(), 's')).toBe('2030-05-06 14:30:15');
    expect(formatJobTime(0, 's')).toBeNull();
  });
});
