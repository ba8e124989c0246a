/**
 * The GraphQL enums DirectoryLinkStatus and DirectoryLinkSource, each value mapped to the stored word:
 * graphql-tools serialises a stored status as its enum value, and parses an enum value in an argument
 * (`filter.linkStatus`) into the stored word, so resolvers speak the stored words both ways.
 */
import type { LinkSource, LinkStatus } from '../identities/model';

export const linkEnumResolvers = {
  DirectoryLinkStatus: {
    LINKED: 'linked',
    PENDING: 'pending',
    CONFLICT: 'conflict',
    NOT_ASSERTED: 'notAsserted',
  } satisfies Record<string, LinkStatus>,
  DirectoryLinkSource: { ASSERTED: 'asserted', MANUAL: 'manual' } satisfies Record<string, LinkSource>,
};
