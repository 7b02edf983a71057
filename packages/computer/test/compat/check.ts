/**
 * The type-level predicates the generated compat fixtures apply to every
 * public name of the published `@cloudflare/computer@0.2.1` (installed as
 * `computer-reference`). A fixture line is `type _x = Fits<…>`: it fails to
 * type-check when the predicate is `false`, so each name is one line and one
 * diagnostic.
 *
 * Directions follow how user code meets a name after switching the import:
 * a value (function, constant, class) is something the user calls or
 * constructs, so ours must be usable where theirs was (`Ours extends Ref`);
 * an options type is something the user builds and hands to us, so theirs
 * must be accepted by ours (`Ref extends Ours`); a result type is something
 * we hand back, so ours must provide it (`Ours extends Ref`); a type the user
 * implements and hands to us (an observer, a backend) must fit both ways.
 *
 * Brands. A class with `#private` or `private` members is nominal: only its
 * own declaration is assignable to it. User code that switches its imports
 * never names the original's classes, so their brands cannot matter to it.
 * The fixtures therefore read `computer-reference` through a de-branded copy
 * of its declarations (`node scripts/compat-surface.mjs --prepare` writes it
 * to `.cache/compat-reference`; tsconfig.compat.json's `paths` point there):
 * every class in it has its `#private` and `private` members removed, so a
 * member whose type is one of the original's classes (a stub's `fs`, a
 * provider's `db`) is compared by its public members, at every depth.
 * Protected members stay (a subclass sees them). Ours are compared as they
 * are: where ours is the target (an options type, a constructor parameter),
 * one of our classes there is still nominal.
 */

/** Fails the line when `T` is not `true`. */
export type Fits<T extends true> = T;

/** `A` is assignable to `B`, without distributing over unions. */
export type Assignable<A, B> = [A] extends [B] ? true : false;

/**
 * The public members of a class instance or object type, at the top level
 * (of ours too; deeper down, the de-branded reference has none to strip).
 * `#private` and `private` members make two declarations of the "same" class
 * nominally distinct; user code cannot reach them, so they are left out.
 */
export type Public<T> = { [K in keyof T]: T[K] };

type Both<A extends boolean, B extends boolean> = A extends true ? B : false;

/** A function or constant: ours is usable wherever theirs was. */
export type ValueFits<Ours, Ref> = Assignable<Ours, Ref>;

// biome-ignore lint/suspicious/noExplicitAny: a constructor of any arguments is the widest class shape.
type AnyClass = abstract new (...args: any) => unknown;

/**
 * A class: ours accepts their constructor arguments, its instances provide
 * their public members, and its static members fit theirs.
 */
export type ClassFits<Ours, Ref> = Ours extends AnyClass
  ? Ref extends AnyClass
    ? Both<
        Both<
          Assignable<ConstructorParameters<Ref>, ConstructorParameters<Ours>>,
          Assignable<Public<InstanceType<Ours>>, Public<InstanceType<Ref>>>
        >,
        Assignable<Omit<Public<Ours>, "prototype">, Omit<Public<Ref>, "prototype">>
      >
    : false
  : false;

/** A result type: ours provides everything theirs promises. */
export type ResultFits<Ours, Ref> = Assignable<Ours, Ref>;

/** An options type: ours accepts everything theirs accepts. */
export type OptionsFits<Ours, Ref> = Assignable<Ref, Ours>;

/** A type user code both builds and receives: it must fit both ways. */
export type MutualFits<Ours, Ref> = Both<Assignable<Ours, Ref>, Assignable<Ref, Ours>>;
