// Placeholder until the kms service lands; replaced by its owner.
export {};
