/**
 * The kubectl plugin `kubectl-toolkit`: the same CLI, whose help and messages say
 * `kubectl toolkit`. kubectl finds it on the PATH and passes the arguments after `toolkit`.
 *
 * @module
 */
import { main } from "./main.ts";

if (import.meta.main) await main("kubectl toolkit");
