/**
 * What Clamp says to a language server as it starts and answers when the server asks: `initialize`'s
 * parameters (the workspace as root and only folder, the few capabilities Clamp uses) and the replies to
 * the server's own requests (its settings, capability registration, progress tokens, messages).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigurationRequest,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageRequest,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type InitializeParams,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol';
import type { RpcConnection } from './rpc';
import type { ServerSpec } from './servers';

/** What `initialize` tells a server: the workspace as its root and only folder, and the little Clamp asks of it. */
export function initializeParams(workspace: string, spec: ServerSpec, sandboxed: boolean, initializationOptions: Record<string, unknown> | undefined): InitializeParams {
  const rootUri = pathToFileURL(workspace).href;
  return {
    // inside the sandbox's pid namespace Clamp's pid means nothing; bwrap's --die-with-parent watches instead
    processId: sandboxed ? null : process.pid,
    clientInfo: { name: 'clamp' },
    rootUri,
    rootPath: workspace,
    workspaceFolders: [{ uri: rootUri, name: path.basename(workspace) }],
    capabilities: {
      textDocument: {
        synchronization: { dynamicRegistration: false, didSave: false },
        ...(spec.kind === 'typescript' ? {} : { publishDiagnostics: { versionSupport: true }, diagnostic: { dynamicRegistration: false } }),
      },
      workspace: { configuration: true, workspaceFolders: true },
      window: { workDoneProgress: false },
    },
    ...(initializationOptions ? { initializationOptions } : {}),
  };
}

/** The setting at a dotted section (`python.analysis`), or null. */
function settingAt(settings: Record<string, unknown>, section: string): unknown {
  return section.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), settings) ?? null;
}

/** Answer what a server asks of its client (its settings from `settings`), and pass on the diagnostics it pushes. */
export function answerServer(rpc: RpcConnection, workspace: string, settings: Record<string, unknown>, onPublish: (p: PublishDiagnosticsParams) => void): void {
  const folders = () => [{ uri: pathToFileURL(workspace).href, name: path.basename(workspace) }];
  rpc.onRequest(ConfigurationRequest.type, (p) => (p?.items ?? []).map((it) => (it.section ? settingAt(settings, it.section) : settings)));
  rpc.onRequest(RegistrationRequest.type, () => null);
  rpc.onRequest(UnregistrationRequest.type, () => null);
  rpc.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  rpc.onRequest(ShowMessageRequest.type, () => null);
  rpc.onRequest(WorkspaceFoldersRequest.type, folders);
  rpc.onNotification(PublishDiagnosticsNotification.type, onPublish);
}
