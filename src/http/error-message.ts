import { type Static, Type } from '@sinclair/typebox';
import type { LarderError } from '../shared/errors.js';

/** interface.md §2.4. Every error body Larder sends (the OAuth token endpoint excepted, per RFC 6749). */
export const ErrorMessageSchema = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        status: Type.String({ description: 'HTTP status code of the response, as a string.' }),
        code: Type.Integer({ description: 'Stable numeric identifier of the error condition.' }),
        message: Type.String(),
        messageKey: Type.Optional(Type.String({ description: 'Reserved for future use.' })),
        fieldName: Type.Optional(
          Type.String({ description: 'The request field at fault, when there is one.' }),
        ),
        link: Type.Optional(Type.String()),
        requestId: Type.String(),
        developerMessage: Type.Optional(Type.String()),
        errors: Type.Optional(Type.Array(Self)),
        canRetry: Type.Optional(Type.String({ description: '"true" for 429 and 5xx, "false" otherwise.' })),
      },
      { additionalProperties: false },
    ),
  { title: 'ErrorMessage' },
);

export type ErrorMessage = Static<typeof ErrorMessageSchema>;

const canRetry = (status: number) => (status === 429 || status >= 500 ? 'true' : 'false');

export const toErrorMessage = (error: LarderError, requestId: string): ErrorMessage => {
  const status = String(error.status);
  const body: ErrorMessage = { status, code: error.numericCode, message: error.message, requestId };
  if (error.fieldName !== undefined) body.fieldName = error.fieldName;
  if (error.developerMessage !== undefined) body.developerMessage = error.developerMessage;
  // One field at fault is named by fieldName alone; nested errors are for several (our decision), so a client
  // reads one shape per case whichever endpoint answered.
  if (error.problems.length > 1 || (error.problems.length === 1 && error.fieldName === undefined)) {
    body.errors = error.problems.map((problem) => ({
      status,
      code: error.numericCode,
      message: `${problem.fieldName} ${problem.message}.`,
      fieldName: problem.fieldName,
      requestId,
      canRetry: canRetry(error.status),
    }));
  }
  body.canRetry = canRetry(error.status);
  return body;
};
