/** A part of the node: the kit's feature (see `@anchor/common/service`), created from the NodeContext. */
export type { Feature as NodeFeature } from '@anchor/common/service';
