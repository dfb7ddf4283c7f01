import { copyFileSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../../src/rest/api-docs.ts';
import { clientContract } from '../support/openapi-breaking.ts';

/**
 * Records what clients rely on today (README, Tests): `npx tsx test/baselines/update.ts`, committed in the
 * same change as a break that test/schema-baseline.test.ts reports, so a reviewer sees the break.
 */

const here = (name: string) => new URL(name, import.meta.url);
copyFileSync(new URL('../../schema.graphql', import.meta.url), here('schema.graphql'));
writeFileSync(here('openapi.json'), `${JSON.stringify(clientContract(openApiDocument()), null, 2)}\n`);
console.log('test/baselines: schema.graphql and openapi.json updated');
