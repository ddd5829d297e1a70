/** Random trace (16 bytes) and span (8 bytes) ids in lower-case hex, never all zero (as the SDK's RandomIdGenerator). */

const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;
const shared = Buffer.allocUnsafe(TRACE_ID_BYTES);

function randomId(bytes: number): string {
  for (let i = 0; i < bytes / 4; i++) shared.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, i * 4);
  // All zero is the invalid id: the last byte becomes 1 then.
  let zero = true;
  for (let i = 0; i < bytes && zero; i++) zero = shared[i] === 0;
  if (zero) shared[bytes - 1] = 1;
  return shared.toString('hex', 0, bytes);
}

export const newTraceId = (): string => randomId(TRACE_ID_BYTES);
export const newSpanId = (): string => randomId(SPAN_ID_BYTES);
