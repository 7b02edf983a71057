/**
 * The main module of the `computer:workerd` test project. The shared tests run
 * in this isolate and need nothing from it; workerd just requires a handler.
 */
export default {
  fetch(): Response {
    return new Response("computer test worker");
  },
} satisfies ExportedHandler;
