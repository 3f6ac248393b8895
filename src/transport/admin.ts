// The control plane under /__admin, served by express.
import express, { type Router } from 'express';
import type { Gateway } from '../gateway.ts';

export function adminRouter(gateway: Gateway, version: string): Router {
  const router = express.Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'healthy', version });
  });
  router.get('/requests', (_req, res) => {
    const requests = gateway.requests();
    res.json({ requests, meta: { total: requests.length, activeStreams: gateway.activeStreams } });
  });
  router.post('/reset', (_req, res) => {
    gateway.reset();
    res.json({ reset: true });
  });
  return router;
}
