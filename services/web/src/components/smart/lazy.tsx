// The smart-link editor and the UTM builder load when their section is first opened (one chunk with
// @kurz/link-rules), so the initial JavaScript stays within its budget.
import { lazyPage } from "../lazyPage.tsx";

export const SmartEditor = lazyPage(() => import("./SmartEditor.tsx").then((m) => m.SmartEditor));
export const UtmBuilder = lazyPage(() => import("./UtmBuilder.tsx").then((m) => m.UtmBuilder));
