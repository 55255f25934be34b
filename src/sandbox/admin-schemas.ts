import { type Static, Type } from '@sinclair/typebox';
import { Closed } from '../shared/schema-helpers.js';

/** The admin API's request and answer shapes: validation, types and (later) the OpenAPI document. */

export const ClockViewSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: 'The virtual time.' }),
    offsetSeconds: Type.Integer({ description: 'Virtual time minus real time, in whole seconds.' }),
    frozen: Type.Boolean({ description: 'True while time stands still.' }),
  },
  { title: 'ClockView', ...Closed },
);

export const ClockSetRequestSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: 'The time to jump to (backwards too).' }),
    frozen: Type.Optional(Type.Boolean({ description: 'Stop time there (default false: it runs on).' })),
  },
  { title: 'ClockSetRequest', ...Closed },
);
export type ClockSetRequest = Static<typeof ClockSetRequestSchema>;

export const ClockAdvanceRequestSchema = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: 10 * 366 * 86_400,
      description: 'How far to move forward.',
    }),
  },
  { title: 'ClockAdvanceRequest', ...Closed },
);
export type ClockAdvanceRequest = Static<typeof ClockAdvanceRequestSchema>;

export const NewClientRequestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    locations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 10_000 })),
    allLocations: Type.Optional(Type.Boolean()),
    scopes: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Space-separated scopes (default retail.inventory:read).',
      }),
    ),
  },
  { title: 'NewClientRequest', ...Closed },
);
export type NewClientRequest = Static<typeof NewClientRequestSchema>;
