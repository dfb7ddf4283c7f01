import { writeFileSync } from 'node:fs';
import { printSortedSchema } from '../../src/schema/index.ts';

// Writes schema.graphql, the checked-in SDL that test/schema.test.ts compares with the code.
writeFileSync(new URL('../../schema.graphql', import.meta.url), printSortedSchema());
console.log('wrote schema.graphql');
