/**
 * How a failed capability call's error is built back inside the sandbox:
 * dofs' one error shape (the host sends `toShape(error)` as data). Bundled
 * into the sandbox from dofs' source; it holds no host state.
 */
export { fromShape } from "@cloudflare/dofs";
