/**
 * `createAssets().share` in Node: what `docs/assets.md` describes. Presigned
 * URLs are checked against a SigV4 signer written here from the AWS spec on
 * node:crypto — independent of sigv4.ts (WebCrypto) — so a shared mistake
 * cannot hide. The bucket is an in-memory stand-in with R2's `put` shape
 * (the real one is tested in share.worker.test.ts), and FixedLengthStream,
 * a Workers API, is polyfilled.
 */
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedSignature } from "../../test/sigv4-expected.js";
import { contentDisposition } from "./content-type.js";
import { type AssetsBucket, createAssets } from "./create-assets.js";
import { randomId } from "./key.js";

class FixedLengthStreamPolyfill extends TransformStream<Uint8Array, Uint8Array> {
  constructor(length: number) {
    let seen = 0;
    super({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > length) controller.error(new TypeError("too many bytes"));
        else controller.enqueue(chunk);
      },
      flush(controller) {
        if (seen !== length) controller.error(new TypeError("too few bytes"));
      },
    });
  }
}

const globals = globalThis as { FixedLengthStream?: unknown };
beforeAll(() => {
  globals.FixedLengthStream = FixedLengthStreamPolyfill;
});
afterAll(() => {
  delete globals.FixedLengthStream;
});

interface Put {
  key: string;
  body: Buffer;
  // share always passes both metadata fields.
  options: Required<NonNullable<Parameters<AssetsBucket["put"]>[2]>>;
}

function memoryBucket(): AssetsBucket & { puts: Put[] } {
  const puts: Put[] = [];
  return {
    puts,
    async put(key, value, options) {
      const body = Buffer.from(await new Response(value).arrayBuffer());
      puts.push({ key, body, options: options as Put["options"] });
      return {};
    },
  };
}

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 600);
const s3 = {
  bucket: "shared",
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  accountId: "acct",
};

async function workspace() {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  await fs.mkdir("/workspace/secret", { recursive: true });
  await fs.writeFile("/workspace/secret/q3.pdf", "%PDF-1.7 report");
  return { fs, sessionId: "sess-1" };
}

describe("share", () => {
  it("share returns the URL string (as the original); shareAsset the URL with its record", async () => {
    const ws = await workspace();
    const bucket = memoryBucket();
    const assets = createAssets({ ws, bucket, s3, env: {}, now: () => NOW });
    const url = await assets.share("/workspace/secret/q3.pdf", { expiresAfter: 60_000 });
    expect(typeof url).toBe("string");
    expect(new URL(url).pathname).toBe(`/shared/${(bucket.puts[0] as Put).key}`);
    const shared = await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 60_000 });
    expect(shared).toMatchObject({ size: expect.any(Number), contentType: "application/pdf" });
    expect(new URL(shared.url).pathname).toBe(`/shared/${shared.key}`);
  });

  it("takes a workspace-like object whose stat has only size, and refuses a directory", async () => {
    const real = await workspace();
    const bucket = memoryBucket();
    const like = {
      sessionId: "s1",
      fs: {
        stat: async (p: string) => ({ size: (await real.fs.stat(p)).size }),
        readFile: (p: string) => real.fs.readFile(p),
      },
    };
    const url = await createAssets({ ws: like, bucket, s3, env: {}, now: () => NOW }).share(
      "/workspace/secret/q3.pdf",
      { expiresAfter: 1000 },
    );
    expect(url).toMatch(/^https:\/\//);
    expect((bucket.puts[0] as Put).options.customMetadata.sessionId).toBe("s1");
    const assets = createAssets({ ws: real, bucket, s3, env: {}, now: () => NOW });
    await expect(assets.share("/workspace/secret", { expiresAfter: 1000 })).rejects.toThrow("is not a regular file");
  });

  it("(35) key <prefix>/<26 chars>/<basename>, content type, disposition, metadata; a repeat gets a new key", async () => {
    const ws = await workspace();
    const bucket = memoryBucket();
    const assets = createAssets({ ws, bucket, s3, env: {}, now: () => NOW });
    const shared = await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 60_000, prefix: "/a//b/" });
    expect(shared.key).toMatch(/^a\/b\/[0-9a-hjkmnp-tv-z]{26}\/q3\.pdf$/);
    expect(bucket.puts).toHaveLength(1);
    const [put] = bucket.puts as [Put];
    expect(put.key).toBe(shared.key);
    expect(put.body.toString()).toBe("%PDF-1.7 report");
    expect(put.options).toEqual({
      httpMetadata: { contentType: "application/pdf", contentDisposition: 'inline; filename="q3.pdf"' },
      customMetadata: {
        sourcePath: "/workspace/secret/q3.pdf",
        sessionId: "sess-1",
        expiresAt: new Date(NOW + 60_000).toISOString(),
      },
    });
    const again = await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 60_000, prefix: "/a//b/" });
    expect(again.key).not.toBe(shared.key);

    // Path-style URL on the account endpoint, signed correctly.
    const url = new URL(shared.url);
    expect(url.origin).toBe("https://acct.r2.cloudflarestorage.com");
    expect(url.pathname).toBe(`/shared/${shared.key}`);
    expect(url.searchParams.get("X-Amz-Credential")).toBe("AKIDEXAMPLE/20260102/auto/s3/aws4_request");
    expect(url.searchParams.get("X-Amz-Date")).toBe("20260102T030405Z");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    expect(url.searchParams.get("X-Amz-Signature")).toBe(expectedSignature(url, s3.secretAccessKey));
  });

  it("names that need encoding: keys, URLs and filename* for non-ASCII", async () => {
    const ws = await workspace();
    await ws.fs.writeFile("/workspace/Größe (1).txt", "x");
    const bucket = memoryBucket();
    const assets = createAssets({
      ws,
      bucket,
      s3: { ...s3, endpoint: "http://127.0.0.1:9000", region: "us-east-1" },
      env: {},
      now: () => NOW,
    });
    const shared = await assets.shareAsset("/workspace/Größe (1).txt", {
      expiresAfter: 1000,
      disposition: "attachment",
    });
    expect(shared.key).toMatch(/^[0-9a-z]{26}\/Größe \(1\)\.txt$/);
    const url = new URL(shared.url);
    expect(url.pathname).toBe(`/shared/${shared.key.split("/")[0]}/Gr%C3%B6%C3%9Fe%20%281%29.txt`);
    expect(url.searchParams.get("X-Amz-Signature")).toBe(expectedSignature(url, s3.secretAccessKey));
    expect(bucket.puts[0]?.options.httpMetadata).toEqual({
      contentType: "text/plain; charset=utf-8",
      contentDisposition: `attachment; filename="Gr__e (1).txt"; filename*=UTF-8''Gr%C3%B6%C3%9Fe%20%281%29.txt`,
    });
    expect(contentDisposition("inline", 'a"b.bin')).toBe('inline; filename="a_b.bin"');
  });

  it("(36) expiresAfter 500 ⇒ X-Amz-Expires=1; 30 days ⇒ 604800; 0, negative and NaN are refused", async () => {
    const ws = await workspace();
    const bucket = memoryBucket();
    const assets = createAssets({ ws, bucket, s3, env: {}, now: () => NOW });
    const expires = async (ms: number) =>
      new URL((await assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: ms })).url).searchParams.get(
        "X-Amz-Expires",
      );
    expect(await expires(500)).toBe("1");
    expect(await expires(1000)).toBe("1");
    expect(await expires(1001)).toBe("2");
    expect(await expires(30 * 24 * 3600 * 1000)).toBe("604800");
    const puts = bucket.puts.length;
    for (const bad of [0, -1, Number.NaN]) {
      await expect(assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: bad })).rejects.toThrow(
        /expiresAfter/,
      );
    }
    await expect(assets.shareAsset("/workspace/missing.pdf", { expiresAfter: 1000 })).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect(bucket.puts.length).toBe(puts);
  });

  it("(37) credentials: explicit over env; a missing one is named", async () => {
    const ws = await workspace();
    const bucket = memoryBucket();
    const { accessKeyId: _a, ...noKey } = s3;
    expect(() => createAssets({ ws, bucket, s3: noKey, env: {} })).toThrow(
      /missing access key id: pass s3.accessKeyId or set R2_ACCESS_KEY_ID or AWS_ACCESS_KEY_ID/,
    );
    const { secretAccessKey: _s, ...noSecret } = s3;
    expect(() => createAssets({ ws, bucket, s3: noSecret, env: {} })).toThrow(/missing secret access key/);
    expect(() =>
      createAssets({ ws, bucket, s3: { bucket: "b", accessKeyId: "k", secretAccessKey: "s" }, env: {} }),
    ).toThrow(/missing account id \(or endpoint\)/);
    const fromEnv = createAssets({
      ws,
      bucket,
      s3: { bucket: "b" },
      env: {
        AWS_ACCESS_KEY_ID: "aws-key",
        R2_ACCESS_KEY_ID: "r2-key",
        AWS_SECRET_ACCESS_KEY: "sec",
        R2_ENDPOINT: "https://r2.test",
      },
      now: () => NOW,
    });
    const url = new URL((await fromEnv.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 1000 })).url);
    expect(url.origin).toBe("https://r2.test");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^r2-key\//);
    expect(url.searchParams.get("X-Amz-Signature")).toBe(expectedSignature(url, "sec"));
    const explicit = createAssets({
      ws,
      bucket,
      s3: { ...s3, accessKeyId: "mine" },
      env: { R2_ACCESS_KEY_ID: "env-key" },
      now: () => NOW,
    });
    const signed = new URL((await explicit.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 1000 })).url);
    expect(signed.searchParams.get("X-Amz-Credential")).toMatch(/^mine\//);
  });

  it("ids are 26 lowercase Crockford base32 characters", () => {
    expect(randomId(new Uint8Array(16))).toBe("0".repeat(26));
    expect(randomId(new Uint8Array(16).fill(255))).toBe(`${"z".repeat(25)}w`);
  });

  it("outside workerd without a FixedLengthStream polyfill, share explains itself", async () => {
    const saved = globals.FixedLengthStream;
    delete globals.FixedLengthStream;
    try {
      const assets = createAssets({ ws: await workspace(), bucket: memoryBucket(), s3, env: {} });
      await expect(assets.shareAsset("/workspace/secret/q3.pdf", { expiresAfter: 1000 })).rejects.toThrow(
        /FixedLengthStream/,
      );
    } finally {
      globals.FixedLengthStream = saved;
    }
  });
});
