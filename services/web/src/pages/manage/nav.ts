/** The navigation entries of the manage pages (the shell lists them after Links). */
export const MANAGE_NAV = [
  { href: "/dashboard/domains", label: "Domains" },
  { href: "/dashboard/campaigns", label: "Campaigns" },
  { href: "/dashboard/channels", label: "Channels" },
  { href: "/dashboard/overlays", label: "Overlays" },
];
