// /api/v1/images and /api/v1/utm-templates: what smart links add beside the link itself (preview
// images, saved UTM templates). The use cases are in images/ and utm-templates/.
import { IMAGE_CACHE_CONTROL, ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { getImage } from "../images/get-image.ts";
import { uploadImage } from "../images/upload-image.ts";
import { createUtmTemplate, deleteUtmTemplate, listUtmTemplates } from "../utm-templates/utm-templates.ts";

export function smartLinksRoutes(deps: { prisma: PrismaClient; baseUrl: string }): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.uploadImage, async ({ identity: { accountId }, body, req }) =>
      v1Success(await uploadImage(deps, accountId, body, req.headers["content-type"])),
    ),
    route(ROUTES.getImage, async ({ params }) => {
      const image = await getImage(prisma, params.id);
      return {
        contentType: image.contentType,
        body: image.bytes,
        headers: {
          "Cache-Control": IMAGE_CACHE_CONTROL,
          ETag: image.etag,
          // An image is never a document: nothing in it runs, whatever a browser makes of it.
          "Content-Security-Policy": "default-src 'none'; sandbox",
        },
      };
    }),
    route(ROUTES.listUtmTemplates, async ({ identity: { accountId } }) =>
      v1Success(await listUtmTemplates(prisma, accountId)),
    ),
    route(ROUTES.createUtmTemplate, async ({ identity: { accountId }, body }) =>
      v1Success(await createUtmTemplate(prisma, accountId, body)),
    ),
    route(ROUTES.deleteUtmTemplate, async ({ identity: { accountId }, params }) => {
      await deleteUtmTemplate(prisma, accountId, params.id);
      return v1Success({ deleted: true as const });
    }),
  ];
}
