// A realistic traffic record of 1.4-1.7 KB of JSON as posted: a browser's or an SDK's header set,
// an API's response headers, JSON bodies with ids, names, prices and timestamps that differ from
// record to record (so compression is not flattered by identical records). Deterministic: the
// same `i` gives the same record, so runs compare.
const PATHS = [
  '/api/orders',
  '/api/orders/{id}',
  '/api/cart',
  '/api/products',
  '/api/products/{id}',
  '/api/users/me',
  '/api/checkout',
  '/api/search',
];
const AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'okhttp/4.12.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
];
const STATUSES = [200, 200, 200, 200, 201, 204, 304, 400, 401, 404, 404, 500, 503];

function rng(seed) {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => ((x = (x ^ (x << 13)) >>> 0), (x = (x ^ (x >>> 17)) >>> 0), (x = (x ^ (x << 5)) >>> 0), x / 2 ** 32);
}
const hex = (r, n) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
const uuid = (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;

export function realisticRecord(sourceId, i) {
  const r = rng(i + 1);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const orderId = 100000 + Math.floor(r() * 900000);
  const path = pick(PATHS).replace('{id}', String(orderId));
  const method =
    path === '/api/checkout' || (path === '/api/orders' && r() < 0.4) ? 'POST' : r() < 0.08 ? 'PUT' : 'GET';
  const status = pick(STATUSES);
  const items = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
    sku: `SKU-${hex(r, 6).toUpperCase()}`,
    name: pick(['Espresso beans 1kg', 'Ceramic mug', 'Pour-over kettle', 'Paper filters x100', 'Hand grinder']),
    quantity: 1 + Math.floor(r() * 4),
    unitPrice: Math.round(r() * 9000) / 100,
  }));
  const at = new Date(Date.UTC(2026, 10, 20, 8) + i * 937).toISOString();
  return {
    trafficSourceId: sourceId,
    domainUrl: 'https://shop.example.com',
    pathnameUrl: path,
    status,
    protocol: 'HTTPS',
    method,
    elapsedTime: Math.round(r() * 40000) / 100,
    requestHeaders: {
      accept: 'application/json, text/plain, */*',
      'accept-encoding': 'gzip, deflate, br',
      'accept-language': pick(['en-US,en;q=0.9', 'de-DE,de;q=0.9,en;q=0.8', 'fr-FR,fr;q=0.9']),
      'user-agent': pick(AGENTS),
      'x-request-id': uuid(r),
      ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
      authorization: `Bearer ${hex(r, 40)}`,
      referer: 'https://shop.example.com/cart',
      origin: 'https://shop.example.com',
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
    },
    requestBody:
      method === 'GET'
        ? null
        : { cartId: uuid(r), items, couponCode: r() < 0.2 ? 'WINTER10' : null, shippingAddressId: uuid(r) },
    queryParams: method === 'GET' ? { page: String(1 + Math.floor(r() * 5)), limit: '20' } : {},
    responseHeaders: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      date: new Date(at).toUTCString(),
      etag: `W/"${hex(r, 16)}"`,
      'x-request-id': uuid(r),
      'x-ratelimit-remaining': String(Math.floor(r() * 1000)),
      'strict-transport-security': 'max-age=63072000; includeSubDomains',
      vary: 'Accept-Encoding',
    },
    responseBody:
      status >= 400
        ? {
            statusCode: status,
            error: pick(['Order not found', 'Invalid coupon', 'Service unavailable', 'Unauthorized']),
            requestId: uuid(r),
          }
        : {
            id: orderId,
            status: pick(['pending', 'paid', 'shipped']),
            items,
            total: items.reduce((s, it) => s + it.unitPrice * it.quantity, 0).toFixed(2),
            currency: 'EUR',
            customer: { id: uuid(r), email: `customer${Math.floor(r() * 99999)}@example.com` },
            createdAt: at,
            updatedAt: at,
          },
  };
}
