// har-validator ships no types; the one function the HAR test calls. It rejects with a HARError
// whose `errors` are Ajv's, one per schema violation.
declare module 'har-validator' {
  export function har(data: unknown): Promise<unknown>;
}
