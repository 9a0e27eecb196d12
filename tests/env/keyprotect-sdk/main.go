// keyprotect-sdk: a small command line around IBM's Go SDK for Key Protect
// (github.com/IBM/keyprotect-go-client, at the version tests/env/provision.sh pins), so that
// toolkit's tests can check the Key Protect stand-in (tests/fakes/key_protect_server.ts) and
// toolkit's own vault client against a client nobody here wrote. It only calls the SDK: every
// request, header, retry and error text is the SDK's.
//
//	keyprotect-sdk -url URL -instance ID (-token TOKEN | -api-key KEY -token-url URL)
//	               [-key-ring RING] [-retry-max N] COMMAND [ARGS]
//
// Commands (results as JSON on stdout; a failure prints the SDK's error on stderr, a JSON
// object {"error", "status", "correlationId", "reasons"} on stdout, and exits 1):
//
//	create NAME -payload-file FILE [-alias A]... [-description D]
//	                                    CreateImportedKeyWithAliases (a standard key)
//	get ID_OR_ALIAS [-payload-out FILE] GetKey; writes the decoded payload to FILE
//	metadata ID_OR_ALIAS                GetKeyMetadata
//	list [-limit N] [-offset N] [-state 1,2] [-extractable true|false]
//	                                    ListKeys with ListKeysOptions
//	get-keys                            GetKeys(ctx, 0, 0): the SDK's plain listing
//	delete ID_OR_ALIAS                  DeleteKey(ReturnRepresentation)
//	alias-create ALIAS ID_OR_ALIAS      CreateKeyAlias
//	alias-delete ALIAS ID_OR_ALIAS      DeleteKeyAlias
//	key-ring-create ID                  CreateKeyRing
//	key-rings                           GetKeyRings
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	kp "github.com/IBM/keyprotect-go-client"
	"github.com/IBM/keyprotect-go-client/iam"
)

type aliasList []string

func (a *aliasList) String() string     { return strings.Join(*a, ",") }
func (a *aliasList) Set(v string) error { *a = append(*a, v); return nil }

func main() {
	os.Exit(run(os.Args[1:]))
}

func usage(format string, args ...interface{}) int {
	fmt.Fprintf(os.Stderr, "keyprotect-sdk: "+format+"\n", args...)
	return 2
}

func run(args []string) int {
	global := flag.NewFlagSet("keyprotect-sdk", flag.ContinueOnError)
	url := global.String("url", "", "Key Protect base URL")
	instance := global.String("instance", "", "service instance id")
	token := global.String("token", "", "IAM access token (without Bearer)")
	apiKey := global.String("api-key", "", "IBM Cloud API key")
	tokenURL := global.String("token-url", "", "IAM token endpoint")
	keyRing := global.String("key-ring", "", "x-kms-key-ring")
	retryMax := global.Int("retry-max", kp.RetryMax, "the SDK's RetryMax")
	if err := global.Parse(args); err != nil {
		return 2
	}
	if *url == "" || *instance == "" || global.NArg() == 0 {
		return usage("need -url, -instance and a command")
	}
	kp.RetryMax = *retryMax
	iam.RetryMax = *retryMax

	config := kp.ClientConfig{
		BaseURL:    strings.TrimRight(*url, "/"),
		InstanceID: *instance,
		APIKey:     *apiKey,
		TokenURL:   *tokenURL,
		KeyRing:    *keyRing,
		Verbose:    kp.VerboseNone,
		Timeout:    30,
	}
	if *token != "" {
		config.Authorization = "Bearer " + *token
	}
	client, err := kp.New(config, kp.DefaultTransport())
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	command, rest := global.Arg(0), global.Args()[1:]

	switch command {
	case "create":
		flags := flag.NewFlagSet("create", flag.ContinueOnError)
		payloadFile := flags.String("payload-file", "", "the key material")
		description := flags.String("description", "", "a description")
		var aliases aliasList
		flags.Var(&aliases, "alias", "an alias (repeatable)")
		name, err := parseWithName(flags, rest)
		if err != nil {
			return usage("create: %v", err)
		}
		material, err := os.ReadFile(*payloadFile)
		if err != nil {
			return usage("create: %v", err)
		}
		payload := base64.StdEncoding.EncodeToString(material)
		options := []kp.CreateKeyOption{kp.WithPayload(payload, nil, nil, false)}
		if len(aliases) > 0 {
			options = append(options, kp.WithAliases(aliases))
		}
		if *description != "" {
			options = append(options, kp.WithDescription(*description))
		}
		key, err := client.CreateKeyWithOptions(ctx, name, true, options...)
		return result(key, err)
	case "get":
		flags := flag.NewFlagSet("get", flag.ContinueOnError)
		payloadOut := flags.String("payload-out", "", "write the decoded payload here")
		ref, err := parseWithName(flags, rest)
		if err != nil {
			return usage("get: %v", err)
		}
		key, err := client.GetKey(ctx, ref)
		if err == nil && *payloadOut != "" {
			material, decodeErr := base64.StdEncoding.DecodeString(key.Payload)
			if decodeErr != nil {
				return fail(decodeErr)
			}
			if writeErr := os.WriteFile(*payloadOut, material, 0o600); writeErr != nil {
				return fail(writeErr)
			}
		}
		return result(key, err)
	case "metadata":
		if len(rest) != 1 {
			return usage("metadata ID_OR_ALIAS")
		}
		key, err := client.GetKeyMetadata(ctx, rest[0])
		return result(key, err)
	case "list":
		flags := flag.NewFlagSet("list", flag.ContinueOnError)
		limit := flags.Int("limit", -1, "limit")
		offset := flags.Int("offset", -1, "offset")
		states := flags.String("state", "", "states, e.g. 1,2")
		extractable := flags.String("extractable", "", "true or false")
		if err := flags.Parse(rest); err != nil {
			return 2
		}
		options := &kp.ListKeysOptions{}
		if *limit >= 0 {
			l := uint32(*limit)
			options.Limit = &l
		}
		if *offset >= 0 {
			o := uint32(*offset)
			options.Offset = &o
		}
		if *states != "" {
			for _, s := range strings.Split(*states, ",") {
				n, err := strconv.Atoi(s)
				if err != nil {
					return usage("list: bad state %q", s)
				}
				options.State = append(options.State, kp.KeyState(n))
			}
		}
		if *extractable != "" {
			e := *extractable == "true"
			options.Extractable = &e
		}
		keys, err := client.ListKeys(ctx, options)
		return result(keys, err)
	case "get-keys":
		keys, err := client.GetKeys(ctx, 0, 0)
		return result(keys, err)
	case "delete":
		if len(rest) != 1 {
			return usage("delete ID_OR_ALIAS")
		}
		key, err := client.DeleteKey(ctx, rest[0], kp.ReturnRepresentation)
		return result(key, err)
	case "alias-create":
		if len(rest) != 2 {
			return usage("alias-create ALIAS ID_OR_ALIAS")
		}
		alias, err := client.CreateKeyAlias(ctx, rest[0], rest[1])
		return result(alias, err)
	case "alias-delete":
		if len(rest) != 2 {
			return usage("alias-delete ALIAS ID_OR_ALIAS")
		}
		return result(map[string]bool{"deleted": true}, client.DeleteKeyAlias(ctx, rest[0], rest[1]))
	case "key-ring-create":
		if len(rest) != 1 {
			return usage("key-ring-create ID")
		}
		return result(map[string]string{"created": rest[0]}, client.CreateKeyRing(ctx, rest[0]))
	case "key-rings":
		rings, err := client.GetKeyRings(ctx)
		return result(rings, err)
	}
	return usage("unknown command %q", command)
}

// parseWithName parses "NAME -flag value ..." (the positional first, as the commands are
// documented) or flags first.
func parseWithName(flags *flag.FlagSet, args []string) (string, error) {
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := flags.Parse(args); err != nil {
		return "", err
	}
	if name == "" && flags.NArg() > 0 {
		name = flags.Arg(0)
	}
	if name == "" {
		return "", errors.New("missing the name, id or alias")
	}
	return name, nil
}

func result(value interface{}, err error) int {
	if err != nil {
		return fail(err)
	}
	out, err := json.MarshalIndent(value, "", "  ")
	if err != nil {
		return fail(err)
	}
	fmt.Println(string(out))
	return 0
}

type failure struct {
	Error         string        `json:"error"`
	Status        int           `json:"status,omitempty"`
	CorrelationID string        `json:"correlationId,omitempty"`
	Reasons       []interface{} `json:"reasons,omitempty"`
	IAMCode       string        `json:"iamCode,omitempty"`
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, err.Error())
	f := failure{Error: err.Error()}
	var kpErr *kp.Error
	var urlErr *kp.URLError
	var iamErr iam.Error
	switch {
	case errors.As(err, &kpErr):
		f.Status = kpErr.StatusCode
		f.CorrelationID = kpErr.CorrelationID
		for _, r := range kpErr.Reasons {
			f.Reasons = append(f.Reasons, map[string]interface{}{
				"code": r.Code, "message": r.Message, "status": r.Status, "moreInfo": r.MoreInfo,
			})
		}
	case errors.As(err, &urlErr):
		f.CorrelationID = urlErr.CorrelationID
	case errors.As(err, &iamErr):
		if iamErr.HTTPResponse != nil {
			f.Status = iamErr.HTTPResponse.StatusCode
		}
		f.IAMCode = iamErr.ErrorCode
	}
	out, _ := json.Marshal(f)
	fmt.Println(string(out))
	return 1
}
