import { Link } from "wouter-preact";
import { useTitle } from "./common.tsx";

export function NotFoundPage({ what = "page", standalone = true }: { what?: string; standalone?: boolean }) {
  useTitle("Not found");
  const Box = standalone ? "main" : "div";
  return (
    <Box id={standalone ? "main" : undefined} class="not-found">
      <p class="big-code" aria-hidden="true">
        404
      </p>
      <h1>{what === "statistics" ? "These statistics are not public" : "Page not found"}</h1>
      <p class="muted">
        {what === "statistics"
          ? "The link does not exist or its owner has not shared its statistics."
          : "There is nothing at this address."}
      </p>
      <Link href="/" class="btn">
        Go to Kurz
      </Link>
    </Box>
  );
}
