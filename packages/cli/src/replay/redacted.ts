import { describePlaces, placeholderOf, redactedPlaces, type HttpTrafficRecord } from '@tapline/shared';

/**
 * Why a curl command built from the record (which has no way to ask) does not send what was sent:
 * redacted values, and a body kept only as a placeholder. Empty when it does.
 */
export function curlWarnings(request: HttpTrafficRecord['request']): string[] {
  const places = describePlaces(redactedPlaces(request));
  const placeholder = placeholderOf(request.body);
  return [
    ...(places
      ? [`redacted when recorded, so not replayed as sent: ${places}; \`tapline traffic replay\` can fill them in`]
      : []),
    ...(placeholder
      ? [
          `the body was not kept whole, so the command sends its placeholder ("${placeholder}"); \`tapline traffic replay --data\` sends a body you give`,
        ]
      : []),
  ];
}
