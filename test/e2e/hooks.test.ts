/**
 * End-to-end: hooks through the page. The person writes a PreToolUse hook in the settings page's Hooks section; the
 * model's `cat .env` is then refused by it: nothing runs, the card says which hook blocked it, and the model read why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { card, screenshot, send, waitIdle } from './browser';
import { e2eSuite } from './suite';

const s = e2eSuite('clamp-e2e-hooks-', { '.env': 'KEY=secret-value\n' }, (req) =>
  req.body.messages.at(-1)?.role === 'tool' ? { text: 'The hook refused it.' } : { toolCalls: [{ name: 'run_command', args: { command: 'cat .env' }, id: 'call_env' }] },
);

describe('hooks on the page', () => {
  it('a hook saved on the settings page blocks a call; the card names the hook', async () => {
    const hook = path.join(s.ws.root, 'check-secrets.sh');
    fs.writeFileSync(hook, '#!/bin/sh\ncmd=$(jq -r .tool_input.command)\ncase "$cmd" in *.env*) echo "commands may not read secrets ($cmd)" >&2; exit 2 ;; esac\n', { mode: 0o755 });
    const { page } = await s.start('hooks');
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    const field = dialog.getByRole('textbox', { name: 'Your hooks (JSON)' });
    await field.fill('{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}]}}');
    await dialog.getByRole('button', { name: 'Save hooks' }).click();
    await expect.poll(() => dialog.getByRole('alert').filter({ hasText: 'Not saved:' }).count()).toBe(1);
    await field.fill(JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] } }, null, 2));
    await dialog.getByRole('button', { name: 'Save hooks' }).click();
    await dialog.getByText('Saved. The next call uses them.').waitFor();
    await dialog.getByRole('list', { name: 'Your hooks' }).getByText('check-secrets', { exact: true }).waitFor();
    await dialog.locator('section[aria-labelledby="hooks-h"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'hooks-settings');
    await page.keyboard.press('Escape');
    await send(page, 'show me the env');
    await waitIdle(page);
    const c = card(page, 'call_env');
    await expect.poll(() => c.locator('[data-hook-badge="denied"]').textContent()).toBe('blocked by hook check-secrets');
    await c.getByRole('button').first().click();
    await c.getByRole('list', { name: 'Hooks' }).getByText('blocked by hook check-secrets: commands may not read secrets (cat .env)').waitFor();
    await screenshot(page, 'hooks-card-blocked');
    const tool = s.fake.requests[1].body.messages.find((m) => m.role === 'tool');
    expect(JSON.stringify(tool?.content)).toContain('blocked by hook check-secrets: commands may not read secrets (cat .env)');
    expect(JSON.stringify(tool?.content)).not.toContain('secret-value');
  });
});
