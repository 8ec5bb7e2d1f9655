import { serveTasks } from '@anchor/common/workers';
import type { KeyMaterial } from '../key-material.js';
import { runSignTask, type SignOutcome, type SignTask } from './sign-task.js';

// A worker thread of the batch-signing pool (index.ts). Each key arrives as plain bytes; its parsed
// node:crypto key is cached on the material object (key-material.ts), so one material per key name is
// kept here and reused, and a thread parses each key once. Bounded: a thread forgets all at the bound.
const MAX_KEYS = 10_000;
const materials = new Map<string, KeyMaterial>();

serveTasks<SignTask, SignOutcome>((task) => {
  let material = materials.get(task.keyName);
  if (!material) {
    if (materials.size >= MAX_KEYS) materials.clear();
    material = task.material;
    materials.set(task.keyName, material);
  }
  return runSignTask(task, material);
});
