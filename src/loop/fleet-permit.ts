import type { StopReason } from '../state/stop-reasons.js';

/** Why a fleet refuses a worker's next iteration: a budget of the whole fleet, or a stop. */
export type FleetDenial = {
  reason: Extract<StopReason, 'max-iterations' | 'max-time' | 'max-cost' | 'max-tokens' | 'cost-unknown' | 'stopped'>;
  detail: string;
};

/** What a worker sends before each iteration, and what the fleet answers (over the IPC channel). */
export interface PermitRequest {
  type: 'permit';
  story?: string;
  /**
   * Iterations this worker process was granted before: each has finished, and its `iteration.finished`
   * event is on stdout. The channel may overtake stdout, so the fleet answers only once it has read them.
   */
  after: number;
}
export type PermitAnswer = { type: 'permit'; granted: true } | ({ type: 'permit'; granted: false } & FleetDenial);

/** The environment variable that tells `star-loop run` it is a fleet's worker. */
export const FLEET_WORKER_ENV = 'STAR_LOOP_FLEET_WORKER';

/**
 * In a fleet's worker (`star-loop run` started by `star-loop fleet`): asks the fleet before each iteration,
 * so iterations, cost and tokens are budgets of the whole fleet. When the fleet is gone (the channel
 * closes: the fleet crashed or was killed), `onGone` runs and every later ask is refused as a stop.
 * Outside a fleet: undefined.
 */
export function fleetPermit(onGone: () => void): ((story?: string) => Promise<FleetDenial | undefined>) | undefined {
  const send = process.send?.bind(process);
  if (process.env[FLEET_WORKER_ENV] !== '1' || !send) return undefined;
  const gone: FleetDenial = { reason: 'stopped', detail: 'the fleet that started this worker is gone' };
  // The channel must not keep the worker alive once its run is over.
  process.channel?.unref();
  process.once('disconnect', onGone);
  let granted = 0;
  return (story) =>
    new Promise((resolve) => {
      if (!process.connected) return resolve(gone);
      const done = (answer: FleetDenial | undefined) => {
        process.off('message', onMessage);
        process.off('disconnect', onDisconnect);
        process.channel?.unref();
        resolve(answer);
      };
      const onMessage = (message: unknown) => {
        const answer = message as Partial<PermitAnswer> | undefined;
        if (answer?.type !== 'permit') return;
        if (answer.granted) granted += 1;
        done(
          answer.granted
            ? undefined
            : { reason: (answer as FleetDenial).reason, detail: (answer as FleetDenial).detail },
        );
      };
      const onDisconnect = () => done(gone);
      process.on('message', onMessage);
      process.once('disconnect', onDisconnect);
      process.channel?.ref();
      send({ type: 'permit', story, after: granted } satisfies PermitRequest);
    });
}
