import { ok, type Route } from '../route.ts';

export const registryRoutes: Route[] = [
  {
    method: 'GET',
    path: '/assets',
    doc: {
      operationId: 'listAssets',
      summary: 'The assets the order book quotes',
      tag: 'Registry',
      document: 'assets',
      result: ['assets'],
      responses: { 200: 'Every asset in the registry.' },
      errors: [],
    },
    async handle(_input, run) {
      return ok((await run('assets', {})).data.assets);
    },
  },
  {
    method: 'GET',
    path: '/chains',
    doc: {
      operationId: 'listChains',
      summary: 'The chains the order book settles on',
      tag: 'Registry',
      document: 'chains',
      result: ['chains'],
      responses: { 200: 'Every chain in the registry.' },
      errors: [],
    },
    async handle(_input, run) {
      return ok((await run('chains', {})).data.chains);
    },
  },
];
