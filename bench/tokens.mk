# tokens.mk - `make bench-tokens`: folded views vs whole sources vs
# repomix --compress in o200k tokens on three corpora, ctags recall of the
# outline, outline/expand latency.  Not a test.  See bench/tokens/run.sh.
.PHONY: bench-tokens
bench: bench-tokens

$(B)/bench/views: bench/tokens/views.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

bench-tokens: $(B)/bench/views
	sh bench/tokens/run.sh $(B)/bench/views

# make bench-packs: context packs for 20 targets each of Gin (a Go web
# framework), Click (a Python CLI library) and Express (JavaScript), all
# written elsewhere
# (bench/tokens/foreign.sh): o200k tokens against the budget, every called
# symbol the index defines present, and the pack's share of the files it
# draws from.  Not a test.
.PHONY: bench-packs
bench: bench-packs
BENCH_PACK_TARGETS := handleHTTPRequest Context.Next Context.JSON Context.Bind \
	Context.ShouldBindWith Engine.addRoute Engine.ServeHTTP Engine.Run RouterGroup.handle \
	RouterGroup.Group LoggerWithConfig CustomRecoveryWithWriter Context.Render \
	Context.Redirect node.addRoute node.getValue Context.SaveUploadedFile Context.Negotiate \
	BasicAuthForRealm Context.SetCookie
BENCH_PACK_TARGETS_CLICK := Context.invoke Context.forward Context.scope BaseCommand.main \
	Command.parse_args Command.invoke MultiCommand.resolve_command MultiCommand.invoke \
	Group.command Parameter.handle_parse_result Parameter.process_value \
	Option.prompt_for_value Option.get_default OptionParser.parse_args \
	OptionParser._process_args_for_options _unpack_args echo prompt confirm \
	HelpFormatter.write_dl
BENCH_PACK_TARGETS_EXPRESS := res.send res.json res.jsonp res.sendFile res.download \
	res.format res.cookie res.redirect res.render res.location req.accepts req.range req.is \
	app.handle app.use app.render app.listen proto.handle Layer.prototype.match \
	View.prototype.lookup
bench-packs: mcpidx
	@set -e; gin=$$(sh bench/tokens/foreign.sh | sed -n 's/^gin=//p'); \
	[ -d bench/tokens/node_modules/gpt-tokenizer ] || (cd bench/tokens && npm ci --no-audit --no-fund --silent); \
	./mcpidx build "$$gin" -o $(B)/bench/gin-index -q; \
	echo "gin:"; \
	node bench/tokens/packs.mjs $(CURDIR)/mcpidx $(CURDIR)/$(B)/bench/gin-index "$$gin" 2000 $(BENCH_PACK_TARGETS); \
	click=$$(sh bench/tokens/foreign.sh | sed -n 's/^click=//p'); \
	./mcpidx build "$$click" -o $(B)/bench/click-index -q; \
	echo "click:"; \
	node bench/tokens/packs.mjs $(CURDIR)/mcpidx $(CURDIR)/$(B)/bench/click-index "$$click" 2000 $(BENCH_PACK_TARGETS_CLICK); \
	express=$$(sh bench/tokens/foreign.sh | sed -n 's/^express=//p'); \
	./mcpidx build "$$express" -o $(B)/bench/express-index -q; \
	echo "express:"; \
	node bench/tokens/packs.mjs $(CURDIR)/mcpidx $(CURDIR)/$(B)/bench/express-index "$$express" 2000 $(BENCH_PACK_TARGETS_EXPRESS)
