import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, graphql, GraphQLEnumType } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { linkEnumResolvers } from '../../../lib/graphql/linkEnums';

const SDL = fs.readFileSync(path.join(__dirname, '../../../lib/graphql/schema.graphql'), 'utf8');

describe('link status and source enums', () => {
  it.each(Object.entries(linkEnumResolvers))('maps every value of %s in schema.graphql', (name, values) => {
    const type = buildSchema(SDL).getType(name);
    expect(type).toBeInstanceOf(GraphQLEnumType);
    const sdlValues = (type as GraphQLEnumType).getValues().map((v) => v.name);
    expect(Object.keys(values).sort()).toEqual([...sdlValues].sort());
  });

  it('serialises the stored words as enum values and parses enum arguments into the stored words', async () => {
    const seen: unknown[] = [];
    const schema = createSchema({
      typeDefs: /* GraphQL */ `
        enum DirectoryLinkStatus {
          LINKED
          PENDING
          CONFLICT
          NOT_ASSERTED
        }
        enum DirectoryLinkSource {
          ASSERTED
          MANUAL
        }
        type Identity {
          status: DirectoryLinkStatus!
          source: DirectoryLinkSource
        }
        type Query {
          identities(status: DirectoryLinkStatus): [Identity!]!
        }
      `,
      resolvers: [
        {
          Query: {
            identities: (_: unknown, args: { status?: string }) => {
              seen.push(args.status);
              return [
                { status: 'notAsserted', source: null },
                { status: 'linked', source: 'manual' },
              ];
            },
          },
        },
        linkEnumResolvers,
      ],
    });
    const result = await graphql({ schema, source: '{ identities(status: NOT_ASSERTED) { status source } }' });
    expect(result.errors).toBeUndefined();
    expect(seen).toEqual(['notAsserted']);
    expect(result.data).toEqual({
      identities: [
        { status: 'NOT_ASSERTED', source: null },
        { status: 'LINKED', source: 'MANUAL' },
      ],
    });
  });
});
