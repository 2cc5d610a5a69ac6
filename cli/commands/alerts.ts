import { alertTarget, postAlert, testAlert } from '../../activities/alerts.js';
import { loadConfig } from '../../lib/config.js';
import { printJson } from '../output.js';

/**
 * `nordprop alerts test`: posts a test message to NORDPROP_ALERT_WEBHOOK_URL, from this machine
 * and with this environment (the worker sends the real alerts with its own: run this where the
 * worker runs). Exit code 1, with the reason, when it is unset or the POST fails.
 */
export async function testAlertCommand(options: { json: boolean }): Promise<number> {
  const url = loadConfig().alertWebhookUrl;
  if (!url) {
    const error = 'NORDPROP_ALERT_WEBHOOK_URL is not set: runs send no alerts (docs/operations.md)';
    if (options.json) printJson({ sent: false, error });
    else console.error(`alerts test: ${error}`);
    return 1;
  }
  try {
    await postAlert(url, testAlert());
  } catch (error) {
    if (options.json) printJson({ sent: false, target: alertTarget(url), error: (error as Error).message });
    else console.error(`alerts test: ${(error as Error).message}`);
    return 1;
  }
  if (options.json) printJson({ sent: true, target: alertTarget(url) });
  else console.log(`test alert sent to ${alertTarget(url)}; look for it in the channel`);
  return 0;
}
