// Writes docs/reference/dataset.md from the dataset's definition (npm run docs:dataset).
import { writeFileSync } from 'node:fs';
import { datasetReference } from '../src/forwarder/dataset/reference.js';

writeFileSync('docs/reference/dataset.md', datasetReference());
console.log('wrote docs/reference/dataset.md');
