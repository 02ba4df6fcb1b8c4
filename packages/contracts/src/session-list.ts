// The account's signed-in sessions, as the dashboard lists them (GET /api/v1/auth/sessions), and
// signing out everywhere (DELETE /api/v1/auth/sessions). Nothing about the device or address is
// stored, so a session is told apart by when it signed in and was last used.
import * as z from "zod";
import { Count, Timestamp, Uuid } from "./primitives.ts";

export const SessionItem = z
  .object({
    id: Uuid,
    created_at: Timestamp.meta({ description: "When it signed in" }),
    last_used_at: Timestamp.meta({ description: "When it was last used (to within a minute)" }),
    expires_at: Timestamp.meta({
      description: "When it ends unless used again (never past its absolute end)",
    }),
    current: z.boolean().meta({ description: "The session making this request" }),
  })
  .meta({ id: "SessionItem" });
export type SessionItem = z.infer<typeof SessionItem>;

export const SessionList = z.object({ sessions: z.array(SessionItem) }).meta({ id: "SessionList" });
export type SessionList = z.infer<typeof SessionList>;

export const SessionsEnded = z
  .object({ ended: Count.meta({ description: "Sessions ended, this one included" }) })
  .meta({ id: "SessionsEnded" });
export type SessionsEnded = z.infer<typeof SessionsEnded>;
