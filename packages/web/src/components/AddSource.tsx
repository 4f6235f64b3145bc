import { contract, type TaplineClient, type TrafficSource } from '@tapline/shared/browser';
import { type FormEvent, useState } from 'react';
import { describeError, fieldErrors } from '../errors.js';
import { Field, FormError } from './Form.js';

export interface AddSourceProps {
  readonly client: TaplineClient;
  readonly onAdded: (source: TrafficSource) => void;
  readonly onCancel: () => void;
}

const FIELDS = ['name', 'trafficDomain'] as const;

/** `tapline sources add <name> <domain>` as a form under the header. */
export function AddSource({ client, onAdded, onCancel }: AddSourceProps) {
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    client
      .call(contract.createTrafficSource, { body: { name, trafficDomain: domain } })
      .then(onAdded, (error: unknown) => setErrors(fieldErrors(error, FIELDS) ?? { form: describeError(error) }));
  };
  return (
    <form className="add-form add-source" aria-label="Add a source" onSubmit={submit} noValidate>
      <Field id="source-name" label="Name" error={errors.name}>
        {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <Field
        id="source-domain"
        label="Domain"
        error={errors.trafficDomain}
        hint="the app's host, such as shop.example.com"
      >
        {(props) => <input {...props} value={domain} onChange={(e) => setDomain(e.target.value)} />}
      </Field>
      <FormError error={errors.form} />
      <button type="submit">Add source</button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
