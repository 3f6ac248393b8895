// The module the build writes beside this declaration (scripts/o200k-table.ts; not in git): the o200k_base
// tables packed for the browser entry, base64-encoded (see packTables in o200k.ts).
declare const packed: string;
export default packed;
