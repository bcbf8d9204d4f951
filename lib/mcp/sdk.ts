import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResultSchema, ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

/** The parts of the MCP SDK Clamp uses: the client, its three transports, two schemas, its errors and its JSON Schema validator. */
export interface McpSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  getDefaultEnvironment: typeof getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  CallToolResultSchema: typeof CallToolResultSchema;
  ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
  validators: AjvJsonSchemaValidator;
}

let sdk: McpSdk | null = null;
let loading: Promise<McpSdk> | null = null;

/**
 * Load the MCP SDK (once). It is loaded only when an MCP server is configured: with its JSON Schema
 * validator (Ajv) it costs a start a quarter of a second, which a run with no server does not pay.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]).then(([client, stdio, http, sse, types, ajv]) => {
    sdk = {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      CallToolResultSchema: types.CallToolResultSchema,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      validators: new ajv.AjvJsonSchemaValidator(),
    };
    return sdk;
  });
  return loading;
}

/** The MCP SDK when it has been loaded, else null (nothing from it can exist yet). */
export function loadedMcpSdk(): McpSdk | null {
  return sdk;
}
