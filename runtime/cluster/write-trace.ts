/**
 * Per-phase timing of the cluster write path (`CTX_CLUSTER_TRACE=true`; docs/scale-out.md, "What a
 * write costs"): one log line per request the gate admitted, one per record a shard appended. It
 * answers "where do a write's milliseconds go on the leader" without a profiler: waiting for the
 * leader (admission), the handler's own work before its batch, waiting behind the record in flight
 * (other writers' or background work's), the quorum ack, waiting for the apply chain, the local
 * synced write, and the rest of the handler after it.
 */

/** Timestamps (performance.now()) of one request's way through the write path. */
export interface WriteTrace {
  /** The gate was entered. */
  gate: number;
  /** The gate admitted the request here (the handler starts). */
  admitted?: number;
  /** Per batch the handler submitted to its shard. */
  batches: BatchTrace[];
}

export interface BatchTrace {
  submitted: number;
  /** The record carrying it started (its publish). */
  flushed?: number;
  /** The quorum acknowledged it. */
  acked?: number;
  /** Its local apply started (the previous records' applies were done). */
  applying?: number;
  applied?: number;
  /** Batches coalesced in its record; how many came from no request (background work). */
  coalesced?: number;
}

const ms = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : Math.round((b - a) * 1000) / 1000);

/** The fields of a request's trace line: milliseconds per phase. */
export function requestPhases(t: WriteTrace, end: number): Record<string, unknown> {
  const first = t.batches[0];
  const last = t.batches.at(-1);
  return {
    admission_ms: ms(t.gate, t.admitted),
    before_batch_ms: ms(t.admitted, first?.submitted),
    batches: t.batches.map((b) => ({
      queued_ms: ms(b.submitted, b.flushed),
      quorum_ms: ms(b.flushed, b.acked),
      apply_wait_ms: ms(b.acked, b.applying),
      apply_ms: ms(b.applying, b.applied),
      coalesced: b.coalesced,
    })),
    after_batch_ms: ms(last?.applied, end),
    total_ms: ms(t.gate, end),
    // Wall-clock (epoch ms, µs precision) of the gate, to line requests up with records and peers.
    gate_at: Math.round((performance.timeOrigin + t.gate) * 1000) / 1000,
  };
}
