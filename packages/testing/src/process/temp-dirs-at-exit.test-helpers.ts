/** Makes two temp dirs, keeps the first, prints both paths and exits: the second must go with the process. */
import { makeTempDir } from './temp-dir.js';

const kept = await makeTempDir('anchor-kept-');
const dropped = await makeTempDir('anchor-dropped-');
kept.keep();
console.log(JSON.stringify({ kept: kept.path, dropped: dropped.path }));
