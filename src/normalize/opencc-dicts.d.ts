// opencc-js exports its dictionaries through the "./*" pattern without type declarations;
// each module's default export is the serialised dictionary "from to|from to|…".
declare module 'opencc-js/dict/*' {
  const dict: string
  export default dict
}
