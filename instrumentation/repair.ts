import type { RunScope } from './internal-types.js';
import { safely } from './safe.js';
import { ATTR_COMPENSATION_OUTCOME, ATTR_GEN_AI_TOOL_CALL_ID, ATTR_GEN_AI_TOOL_NAME, ATTR_REPAIR_STRATEGY, ATTR_REPAIR_TOOL_CALL_IDS, SPAN_HISTORY_REPAIR, SPAN_TOOL_COMPENSATE } from './semconv.js';
import type { CompensationOutcome, RepairStrategy } from './types.js';

/**
 * History repair: tool calls left without a result (by a Stop) were answered
 * with a synthetic result, or their turn was dropped, before the history went
 * back to the model. Without it the next turn fails with a 400.
 */
export function recordHistoryRepair(run: RunScope, strategy: RepairStrategy, toolCallIds: readonly string[]): void {
  safely(
    'history repair',
    () =>
      run.marker(SPAN_HISTORY_REPAIR, {
        ...run.common,
        [ATTR_REPAIR_STRATEGY]: strategy,
        [ATTR_REPAIR_TOOL_CALL_IDS]: toolCallIds.map(String),
      }),
    undefined,
  );
}

/** A compensating action (the saga step: recall the mail, refund the charge) for an earlier commit finished. */
export function recordCompensation(run: RunScope, toolCallId: string, outcome: CompensationOutcome, toolName: string | undefined): void {
  safely(
    'compensate',
    () =>
      run.marker(SPAN_TOOL_COMPENSATE, {
        ...run.common,
        [ATTR_GEN_AI_TOOL_CALL_ID]: String(toolCallId),
        [ATTR_COMPENSATION_OUTCOME]: outcome,
        ...(toolName === undefined ? {} : { [ATTR_GEN_AI_TOOL_NAME]: toolName }),
      }),
    undefined,
  );
}
