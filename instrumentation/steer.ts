import { randomUUID } from 'node:crypto';
import type { RunScope } from './internal-types.js';
import { safely } from './safe.js';
import { ATTR_STEER_ID, ATTR_STEER_POSITION, ATTR_STEER_REASON, SPAN_STEER_DROP, SPAN_STEER_ENQUEUE, SPAN_STEER_INJECT } from './semconv.js';
import type { SteerPosition, SteeringApi } from './types.js';

/**
 * Steering: the user adds a message to a running turn instead of stopping it.
 * Correct injection is between steps (after a tool batch, before the next
 * model call); inside a tool batch it splits a tool call from its result.
 */
export function steeringFor(run: RunScope): SteeringApi {
  return {
    enqueue(id?: string): string {
      const steerId = id ?? `steer_${randomUUID()}`;
      safely('steer enqueue', () => run.marker(SPAN_STEER_ENQUEUE, Object.assign({}, run.common, { [ATTR_STEER_ID]: steerId })), undefined);
      return steerId;
    },
    inject(id: string, position: SteerPosition): void {
      safely('steer inject', () => run.marker(SPAN_STEER_INJECT, Object.assign({}, run.common, { [ATTR_STEER_ID]: id, [ATTR_STEER_POSITION]: position })), undefined);
    },
    drop(id: string, reason?: string): void {
      safely(
        'steer drop',
        () =>
          run.marker(SPAN_STEER_DROP, {
            ...run.common,
            [ATTR_STEER_ID]: id,
            ...(reason === undefined ? {} : { [ATTR_STEER_REASON]: reason }),
          }),
        undefined,
      );
    },
  };
}
