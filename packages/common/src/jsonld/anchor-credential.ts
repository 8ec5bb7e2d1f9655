/**
 * The anchor credential's subject, as Orb builds it (`{href, anchor, profile, rel, type:
 * ["AnchorLink"]}` under credentials/v1 + activityanchors/v1 + the suite context), uses three names that
 * none of those contexts define: `href`, `rel` and the type `AnchorLink`. Orb's JSON-LD processor (aries')
 * drops them silently, so they are in neither its signatures nor its log leaves. To produce and check the
 * same bytes, canonicalise anchor credentials with `allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS`
 * — and treat those three members as unsigned: check `href` against the content it names (the linkset
 * hash), never because a proof verified.
 */
export const ANCHOR_CREDENTIAL_UNDEFINED_TERMS: readonly string[] = Object.freeze(['href', 'rel', 'AnchorLink']);
