import type { HeaderMap, JsonValue } from '@tapline/shared';
import type { Client } from './headers.js';
import { uuidFrom } from './headers.js';
import type { Random } from './random.js';

/**
 * The endpoints of a small shop API, each with the JSON it reads and answers. An answer carries a
 * list (`grow`) that the record generator lengthens until the record has the size it drew.
 */
export interface Exchange {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly pathname: string;
  readonly client: Client;
  readonly queryParams: HeaderMap;
  readonly requestBody: JsonValue;
  readonly responseBody: { [key: string]: JsonValue };
  /** Appends one more element to the answer's list. */
  readonly grow: () => void;
}

const SKUS = ['TSH-BLK-M', 'MUG-WHT-12', 'HOOD-GRY-L', 'CAP-NVY-OS', 'SOCK-RED-42', 'BAG-TOTE-01'];
const price = (r: Random) => Math.round(r.int(300, 12000)) / 100;
const isoTime = (r: Random) =>
  new Date(
    Date.UTC(2026, r.int(0, 10), r.int(1, 28), r.int(0, 23), r.int(0, 59), r.int(0, 59), r.int(0, 999)),
  ).toISOString();

function lineItem(r: Random): JsonValue {
  return {
    sku: r.pick(SKUS),
    quantity: r.int(1, 4),
    unitPrice: price(r),
    currency: 'EUR',
    discount: r.chance(0.2) ? { code: `WINTER${r.int(10, 30)}`, percent: r.int(5, 30) } : null,
  };
}

function product(r: Random): JsonValue {
  return {
    id: uuidFrom(r),
    sku: r.pick(SKUS),
    name: r.pick(['Logo T-shirt', 'Enamel mug', 'Zip hoodie', 'Wool cap']),
    price: price(r),
    stock: r.int(0, 500),
    tags: ['merch', r.pick(['new', 'sale', 'classic'])],
    updatedAt: isoTime(r),
  };
}

function listed<T extends JsonValue>(list: T[], make: () => T) {
  return () => void list.push(make());
}

type Make = (r: Random, client: Client) => Exchange;

const listOrders: Make = (r, client) => {
  const data: JsonValue[] = [];
  return {
    method: 'GET',
    pathname: '/api/v1/orders',
    client,
    queryParams: { status: r.pick(['open', 'paid', 'shipped']), page: String(r.int(1, 40)), limit: '20' },
    requestBody: null,
    responseBody: { data, meta: { page: r.int(1, 40), limit: 20, total: r.int(100, 9000) } },
    grow: listed(data, () => ({
      id: uuidFrom(r),
      number: `SO-${r.int(10000, 99999)}`,
      status: r.pick(['open', 'paid', 'shipped']),
      total: price(r),
      createdAt: isoTime(r),
    })),
  };
};

const getProduct: Make = (r, client) => {
  const related: JsonValue[] = [];
  return {
    method: 'GET',
    pathname: `/api/v1/products/${r.int(1000, 9999)}`,
    client,
    queryParams: { expand: 'variants,related' },
    requestBody: null,
    responseBody: { product: product(r), related },
    grow: listed(related, () => product(r)),
  };
};

const createOrder: Make = (r, client) => {
  // Browsers send the most headers; their carts hold one line, so the record stays realistic in size.
  const items = client === 'browser' || r.chance(0.5) ? [lineItem(r)] : [lineItem(r), lineItem(r)];
  const lines: JsonValue[] = [];
  return {
    method: 'POST',
    pathname: '/api/v1/orders',
    client,
    queryParams: {},
    requestBody: {
      customerId: uuidFrom(r),
      items,
      shippingAddress: {
        name: 'Ada Lovelace',
        line1: `${r.int(1, 200)} Market Street`,
        city: 'London',
        postalCode: 'EC1A 1BB',
        country: 'GB',
      },
      couponCode: r.chance(0.3) ? 'WELCOME10' : null,
    },
    responseBody: {
      id: uuidFrom(r),
      number: `SO-${r.int(10000, 99999)}`,
      status: 'open',
      total: price(r),
      currency: 'EUR',
      lines,
      createdAt: isoTime(r),
    },
    grow: listed(lines, () => lineItem(r)),
  };
};

const login: Make = (r, client) => {
  const sessions: JsonValue[] = [];
  return {
    method: 'POST',
    pathname: '/api/v1/auth/login',
    client,
    queryParams: {},
    requestBody: { email: `user${r.int(1, 99999)}@example.com`, password: r.text(14), rememberMe: r.chance(0.5) },
    responseBody: {
      accessToken: r.text(120),
      refreshToken: r.text(64),
      expiresIn: 3600,
      user: { id: uuidFrom(r), email: 'ada@example.com', roles: ['customer'] },
      recentSessions: sessions,
    },
    grow: listed(sessions, () => ({
      id: uuidFrom(r),
      ip: `203.0.113.${r.int(1, 254)}`,
      userAgent: 'Chrome 131 on macOS',
      lastSeenAt: isoTime(r),
    })),
  };
};

const updateProfile: Make = (r, client) => {
  const activity: JsonValue[] = [];
  return {
    method: 'PATCH',
    pathname: `/api/v1/users/${uuidFrom(r)}`,
    client,
    queryParams: {},
    requestBody: {
      displayName: 'Ada L.',
      locale: r.pick(['en-GB', 'de-DE', 'fr-FR']),
      preferences: { newsletter: r.chance(0.5), theme: 'dark' },
    },
    responseBody: { id: uuidFrom(r), displayName: 'Ada L.', locale: 'en-GB', updatedAt: isoTime(r), activity },
    grow: listed(activity, () => ({
      at: isoTime(r),
      action: r.pick(['login', 'order.created', 'profile.updated']),
      ip: `198.51.100.${r.int(1, 254)}`,
    })),
  };
};

const removeCartItem: Make = (r, client) => {
  const items: JsonValue[] = [];
  return {
    method: 'DELETE',
    pathname: `/api/v1/carts/${uuidFrom(r)}/items/${r.int(1, 30)}`,
    client,
    queryParams: {},
    requestBody: null,
    responseBody: { cartId: uuidFrom(r), items, subtotal: price(r), currency: 'EUR' },
    grow: listed(items, () => lineItem(r)),
  };
};

/** Weighted as traffic is: reads dominate. */
export const ENDPOINTS: readonly Make[] = [
  listOrders,
  listOrders,
  listOrders,
  getProduct,
  getProduct,
  getProduct,
  createOrder,
  createOrder,
  login,
  updateProfile,
  removeCartItem,
];

/** A 4xx/5xx answer: the app's error body, its list being validation or upstream details. */
export function errorBody(r: Random, status: number): { body: { [key: string]: JsonValue }; grow: () => void } {
  const details: JsonValue[] = [];
  return {
    body: {
      statusCode: status,
      error: status >= 500 ? 'Bad Gateway' : 'Unprocessable Entity',
      code: status >= 500 ? 'upstream_unavailable' : 'validation_failed',
      requestId: uuidFrom(r),
      details,
    },
    grow: listed(details, () => ({
      path: r.pick(['items.0.quantity', 'shippingAddress.postalCode', 'couponCode']),
      message: r.pick(['must be at least 1', 'is not a valid postal code', 'has expired']),
    })),
  };
}
