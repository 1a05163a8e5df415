import { appendFileSync } from 'node:fs';

type Next = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<{ url: string }> {
  const result = await next(specifier, context);
  const file = process.env.TRACE_IMPORTS_FILE;
  if (file) appendFileSync(file, `${result.url}\n`);
  return result;
}
