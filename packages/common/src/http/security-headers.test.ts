import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import { serve } from './http.test-helpers.js';
import { createHttpApp } from './index.js';
import { securityHeaders } from './security-headers.js';

describe('securityHeaders', () => {
  it('are exactly the security headers the kit sends on every response', async () => {
    const app = createHttpApp({ metrics: createMetrics({ processMetrics: false }) });
    app.routes.get('/plain', (_req, res) => {
      res.end('ok');
    });
    const server = await serve(app.app);
    try {
      const response = await fetch(`${server.url}/plain`);
      const computed = securityHeaders();
      expect(computed.length).toBeGreaterThan(5);
      for (const [name, value] of computed) expect(response.headers.get(name), name).toBe(value);
      expect(computed.map(([name]) => name.toLowerCase())).toContain('x-content-type-options');
    } finally {
      await server.close();
    }
  });

  it('follow the helmet options', () => {
    const names = (headers: ReadonlyArray<readonly [string, string]>) => headers.map(([name]) => name.toLowerCase());
    expect(names(securityHeaders({ frameguard: false }))).not.toContain('x-frame-options');
    expect(names(securityHeaders())).toContain('x-frame-options');
  });
});
