import type { ParseArgsConfig, parseArgs } from 'node:util';

export declare const usageError: (usage: string, message?: string) => never;
export declare const parseToolArgs: <T extends ParseArgsConfig>(
  usage: string,
  config: T,
) => ReturnType<typeof parseArgs<T>>;
