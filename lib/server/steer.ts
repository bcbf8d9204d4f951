import { requestSteer } from '../agent/steer';
import { isTurnRunning } from './chat';

/** "Send now": the session's running turn ends at its next safe point (after its running tool calls, before the next model step); false when none runs. */
export function steerTurn(sessionId: string): boolean {
  const running = isTurnRunning(sessionId);
  if (running) requestSteer(sessionId);
  return running;
}
