import { describe, expect, it } from 'vitest';
import { ExportLedger } from '../../export/export-ledger.js';
import { ExportResultCode } from '../../otel-compat.js';

describe('the export ledger', () => {
  it('counts an export once, whichever of the exporter and the timeout finishes it first; a success clears the stall', async () => {
    const ledger = new ExportLedger(60_000);
    ledger.stall();
    const ok = ledger.outcome(5);
    ok.finish({ code: ExportResultCode.SUCCESS });
    ok.finish({ code: ExportResultCode.FAILED, error: new Error('late') });
    expect(await ok.settled).toBe(true);
    expect(ledger.counters).toEqual({ exported: 5, dropped: 0, failedExports: 0 });
    expect(ledger.handed).toBe(5);
    expect(ledger.stalled).toBe(false);
  });

  it('an export unanswered within its timeout is dropped as timed out, and the collector is failing', async () => {
    const ledger = new ExportLedger(1);
    let woken = 0;
    ledger.onStall(() => woken++);
    const lost = ledger.outcome(3);
    expect(await lost.settled).toBe(false);
    lost.finish({ code: ExportResultCode.SUCCESS });
    expect(ledger.counters).toEqual({ exported: 0, dropped: 3, failedExports: 1 });
    expect(ledger.timedOut).toBe(3);
    expect(ledger.stalled).toBe(true);
    // Woken once; a waiter is forgotten after its stall.
    ledger.stall();
    expect(woken).toBe(1);
  });

  it('a waiter forgotten before the stall is not woken; spans written at exit count as handed, and exported or dropped', () => {
    const ledger = new ExportLedger(60_000);
    let woken = false;
    const forget = ledger.onStall(() => (woken = true));
    forget();
    ledger.stall();
    expect(woken).toBe(false);
    ledger.written(4, true);
    ledger.written(2, false);
    expect(ledger.handed).toBe(6);
    expect(ledger.counters).toEqual({ exported: 4, dropped: 2, failedExports: 1 });
  });
});
