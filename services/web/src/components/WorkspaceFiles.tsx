// A download the API streams (an export, an import's refused rows). A plain link saves it straight to
// disk, but a link carries no X-Workspace-Id, so the server answers from the person's first workspace.
// In any other workspace the file is fetched with the header and saved from memory instead; an image
// (a QR code) is fetched the same way there.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { workspaceHeaders } from "../api/client.ts";
import { useInFirstWorkspace } from "../api/session.ts";

const fileName = (res: Response) =>
  /filename="?([^";]+)"?/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "download";

export function DownloadLink({
  href,
  class: cls,
  children,
}: {
  href: string;
  class?: string;
  children: ComponentChildren;
}) {
  const inFirst = useInFirstWorkspace();
  const save = async (e: MouseEvent) => {
    if (inFirst) return;
    e.preventDefault();
    const res = await fetch(href, { credentials: "same-origin", headers: workspaceHeaders() });
    if (!res.ok) return;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(await res.blob());
    a.download = fileName(res);
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  return (
    <a class={cls} href={href} download onClick={save}>
      {children}
    </a>
  );
}

/** An image the API makes (a QR code), of the chosen workspace (see DownloadLink). */
export function WorkspaceImage({ src, alt, size }: { src: string; alt: string; size: number }) {
  const inFirst = useInFirstWorkspace();
  const [blobUrl, setBlobUrl] = useState("");
  useEffect(() => {
    if (inFirst) return;
    let url = "";
    void fetch(src, { credentials: "same-origin", headers: workspaceHeaders() })
      .then((res) => (res.ok ? res.blob() : null))
      .then((blob) => {
        if (!blob) return;
        url = URL.createObjectURL(blob);
        setBlobUrl(url);
      });
    return () => URL.revokeObjectURL(url);
  }, [src, inFirst]);
  return <img src={inFirst ? src : blobUrl || undefined} alt={alt} width={size} height={size} />;
}
