// A dependency-free docs page: the OpenAPI document rendered as a readable list of operations.
export function docsPage(specUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kurz API</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1410}
code{background:#f3efe9;padding:.1rem .3rem;border-radius:3px}.op{border-top:1px solid #e5dfd6;padding:.6rem 0}
.m{display:inline-block;width:4.5rem;font-weight:600}</style></head><body>
<h1>Kurz API</h1><p>Authenticate with <code>Authorization: Bearer kurz_live_…</code>. Machine-readable: <a href="${specUrl}">${specUrl}</a>.</p>
<div id="ops">Loading…</div>
<script>
fetch(${JSON.stringify(specUrl)}).then(r=>r.json()).then(doc=>{
  const esc=s=>String(s??"").replace(/[&<>]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;"})[c]);
  let html="";
  for(const [path,ops] of Object.entries(doc.paths||{}))for(const [m,op] of Object.entries(ops)){
    if(typeof op!=="object"||!op)continue;
    html+='<div class="op"><span class="m">'+esc(m.toUpperCase())+'</span><code>'+esc(path)+'</code> '+esc(op.summary)+'</div>';
  }
  document.getElementById("ops").innerHTML=html;
});
</script></body></html>`;
}
