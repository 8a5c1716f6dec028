/** The compile plugin's configuration keys: CTX_EXECUTION_BACKEND_URL (checked at start), its gateway token, CTX_GRPC_PORT. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';

const base = { CTX_ROOT_API_KEY: 'root-key-0123456789abcdef' };

describe('compile configuration', () => {
  it('defaults to the bundled backend and gRPC on 1934', () => {
    const c = loadConfig(base);
    expect(c.executionBackendUrl).toBeUndefined();
    expect(c.grpcPort).toBe(1934);
  });

  it('reads the backend URL, its gateway token and the gRPC port (0 = no gRPC listener)', () => {
    const c = loadConfig({ ...base, CTX_EXECUTION_BACKEND_URL: 'grpc://10.0.0.5:9000', CTX_EXECUTION_BACKEND_GATEWAY_TOKEN: 'tok', CTX_GRPC_PORT: '0' });
    expect(c).toMatchObject({ executionBackendUrl: 'grpc://10.0.0.5:9000', executionBackendGatewayToken: 'tok', grpcPort: 0 });
    expect(loadConfig({ ...base, CTX_EXECUTION_BACKEND_URL: 'https://backend.example/base' }).executionBackendUrl).toBe('https://backend.example/base');
  });

  it('refuses a backend URL of another scheme at start', () => {
    for (const bad of ['ftp://x', '127.0.0.1:9000', 'grpc://'])
      expect(() => loadConfig({ ...base, CTX_EXECUTION_BACKEND_URL: bad }), bad).toThrow(/CTX_EXECUTION_BACKEND_URL must be http:\/\/, https:\/\/, grpc:\/\/ or grpcs:\/\/host:port/);
    expect(() => loadConfig({ ...base, CTX_GRPC_PORT: '-1' })).toThrow(/CTX_GRPC_PORT/);
  });
});
