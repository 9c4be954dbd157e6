/**
 * The seed's client of the public API: a token by client credentials (as any API client gets one),
 * then JSON calls that throw with the service's own error answer when one is refused.
 */

export interface ApiReply {
  status: number;
  // The API's JSON as parsed; the seed reads the few fields it needs.
  body: { data?: unknown; [key: string]: unknown };
}

export class Api {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  static async signIn(baseUrl: string, clientId: string, clientSecret: string): Promise<Api> {
    const response = await fetch(`${baseUrl}/auth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
    });
    const body = (await response.json()) as { access_token?: string; error?: string };
    if (!response.ok || body.access_token === undefined)
      throw new Error(`${baseUrl}/auth/token refused ${clientId}: ${response.status} ${JSON.stringify(body)}`);
    return new Api(baseUrl, body.access_token);
  }

  /** One call; `expected` lists the statuses that are answers rather than failures (default: any 2xx). */
  async call(method: string, path: string, body?: unknown, expected?: readonly number[]): Promise<ApiReply> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const reply: ApiReply = {
      status: response.status,
      body: text === "" ? {} : (JSON.parse(text) as ApiReply["body"]),
    };
    const fine = expected === undefined ? response.ok : expected.includes(response.status);
    if (!fine) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2000)}`);
    return reply;
  }

  /** Every item of a list endpoint (pages of 200). */
  async all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page += 1) {
      const { body } = await this.call("GET", `${path}${path.includes("?") ? "&" : "?"}page=${page}&pageSize=200`);
      const data = body.data as T[];
      items.push(...data);
      if (data.length < 200) return items;
    }
  }
}
