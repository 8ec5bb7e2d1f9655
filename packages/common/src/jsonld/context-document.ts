/** A context document as served at its URL: an object with an `@context` member. */
export type ContextDocument = Readonly<{ '@context': unknown }>;
