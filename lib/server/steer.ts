import { requestSteer } from '../agent/steer';
import { openDb } from '../store/db';
import { isTurnRunning, refuseIfHeldElsewhere } from './turn-hold';

/**
 * "Send now": the session's running turn ends at its next safe point (after its running tool calls, before the next
 * model step); false when none runs. SessionBusyError (409, naming the process) while another process runs it: this
 * server cannot end that turn, and a message sent after it would be refused too.
 */
export function steerTurn(dataDir: string, sessionId: string): boolean {
  const running = isTurnRunning(sessionId);
  if (running) requestSteer(sessionId);
  else refuseIfHeldElsewhere(openDb(dataDir), sessionId, 'Nothing was sent.');
  return running;
}
